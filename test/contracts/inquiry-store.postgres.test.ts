// The InquiryStore contract on PostgreSQL: one database for the file, emptied between tests.
import { sqlInquiryStore } from '../../src/adapters/sql/inquiry-store.js';
import { inquiryStoreContract } from './inquiry-store.contract.js';
import { contractOnPostgres } from './postgres-fixture.js';

await contractOnPostgres('test/contracts/inquiry-store.postgres.test.ts', sqlInquiryStore, inquiryStoreContract);
