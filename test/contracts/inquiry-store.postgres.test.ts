// The InquiryStore contract on PostgreSQL, the store a node uses: one database for the file, emptied between tests.
import { inquiryStoreContract } from './inquiry-store.contract.js';
import { contractOnPostgres } from './postgres-fixture.js';

await contractOnPostgres('test/contracts/inquiry-store.postgres.test.ts', (engine) => engine.inquiries, inquiryStoreContract);
