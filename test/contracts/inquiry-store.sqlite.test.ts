// The InquiryStore contract on SQLite: the store a node uses (its hot writes run directly) and the
// portable Kysely store, each on a real database file per test.
import { sqlInquiryStore } from '../../src/adapters/sql/inquiry-store.js';
import { inquiryStoreContract } from './inquiry-store.contract.js';
import { onSqlite } from './sqlite-fixture.js';

inquiryStoreContract(
  'SQLite',
  onSqlite((engine) => engine.inquiries),
);
inquiryStoreContract(
  'SQLite, the portable store',
  onSqlite((engine) => sqlInquiryStore(engine.db)),
);
