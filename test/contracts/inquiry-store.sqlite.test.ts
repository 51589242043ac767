// The InquiryStore contract on SQLite: a real database file per test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/sql/database.js';
import { sqlInquiryStore } from '../../src/adapters/sql/inquiry-store.js';
import { migrateToLatest } from '../../src/adapters/sql/migrations.js';
import { inquiryStoreContract } from './inquiry-store.contract.js';

inquiryStoreContract('SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-store-'));
  const db = openDatabase({ engine: 'sqlite', path: join(dir, 'store.sqlite') });
  await migrateToLatest(db);
  return {
    store: sqlInquiryStore(db),
    // SQLite runs one node: concurrent requests share its one connection (see oauth-store.sqlite.test.ts).
    another: async () => sqlInquiryStore(db),
    async close() {
      await db.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
