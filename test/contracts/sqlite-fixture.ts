// A store contract on SQLite: a real database file per test; `another()` is a second store on the same
// connection, as SQLite runs one node. (Two connections in one process would deadlock: better-sqlite3
// waits for a lock synchronously, blocking the holder.)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Engine } from '../../src/adapters/sql/database.js';
import { migrateToLatest } from '../../src/adapters/sql/migration-runner.js';
import type { ContractFixture } from './postgres-fixture.js';

/** Opens a fresh migrated database file and the store `make` builds on it. */
export const onSqlite =
  <Store>(make: (engine: Engine) => Store) =>
  async (): Promise<ContractFixture<Store>> => {
    const dir = await mkdtemp(join(tmpdir(), 'portico-store-'));
    const engine = openDatabase({ engine: 'sqlite', path: join(dir, 'store.sqlite') });
    await migrateToLatest(engine);
    return {
      store: make(engine),
      another: async () => make(engine),
      async close() {
        await engine.destroy();
        await rm(dir, { recursive: true, force: true });
      },
    };
  };
