// The OAuthStore contract on SQLite, the store a node uses (its hot statements run directly), on a real
// database file per test. (The Kysely store's token insert is PostgreSQL's; it is tested there.)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../src/adapters/sql/database.js';
import { migrateToLatest } from '../../src/adapters/sql/migrations.js';
import { oauthStore } from '../../src/adapters/stores.js';
import type { OAuthStore } from '../../src/ports/oauth-store.js';
import { oauthStoreContract } from './oauth-store.contract.js';

const onSqlite = (make: (db: Db) => OAuthStore) => async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-store-'));
  const db = openDatabase({ engine: 'sqlite', path: join(dir, 'store.sqlite') });
  await migrateToLatest(db);
  return {
    store: make(db),
    // SQLite runs one node: concurrent requests share its one connection. (Two connections in one
    // process would deadlock: better-sqlite3 waits for a lock synchronously, blocking the holder.)
    another: async () => make(db),
    async close() {
      await db.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
};

oauthStoreContract('SQLite', onSqlite(oauthStore));
