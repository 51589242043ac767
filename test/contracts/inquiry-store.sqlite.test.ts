// The InquiryStore contract on SQLite: the store a node uses (its hot writes run directly) and the
// portable Kysely store, each on a real database file per test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../src/adapters/sql/database.js';
import { sqlInquiryStore } from '../../src/adapters/sql/inquiry-store.js';
import { migrateToLatest } from '../../src/adapters/sql/migrations.js';
import { inquiryStore } from '../../src/adapters/stores.js';
import type { InquiryStore } from '../../src/ports/inquiry-store.js';
import { inquiryStoreContract } from './inquiry-store.contract.js';

const onSqlite = (make: (db: Db) => InquiryStore) => async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-store-'));
  const db = openDatabase({ engine: 'sqlite', path: join(dir, 'store.sqlite') });
  await migrateToLatest(db);
  return {
    store: make(db),
    // SQLite runs one node: concurrent requests share its one connection (see oauth-store.sqlite.test.ts).
    another: async () => make(db),
    async close() {
      await db.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
};

inquiryStoreContract('SQLite', onSqlite(inquiryStore));
inquiryStoreContract('SQLite, the portable store', onSqlite(sqlInquiryStore));
