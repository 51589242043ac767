// The OAuthStore contract on SQLite: a real database file per test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/sql/database.js';
import { migrateToLatest } from '../../src/adapters/sql/migrations.js';
import { sqlOAuthStore } from '../../src/adapters/sql/oauth-store.js';
import { oauthStoreContract } from './oauth-store.contract.js';

oauthStoreContract('SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-store-'));
  const db = openDatabase({ engine: 'sqlite', path: join(dir, 'store.sqlite') });
  await migrateToLatest(db);
  const store = sqlOAuthStore(db);
  return {
    store,
    // SQLite runs one node: concurrent requests share its one connection. (Two connections in one
    // process would deadlock: better-sqlite3 waits for a lock synchronously, blocking the holder.)
    another: async () => sqlOAuthStore(db),
    async close() {
      await db.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
