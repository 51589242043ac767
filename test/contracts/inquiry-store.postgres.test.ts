// The InquiryStore contract on PostgreSQL: one database for the file, emptied between tests.
import { afterAll, beforeAll, describe } from 'vitest';
import { openDatabase, type Db } from '../../src/adapters/sql/database.js';
import { sqlInquiryStore } from '../../src/adapters/sql/inquiry-store.js';
import { migrateToLatest } from '../../src/adapters/sql/migrations.js';
import { createDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.js';
import { inquiryStoreContract } from './inquiry-store.contract.js';

const available = await postgresAvailable('test/contracts/inquiry-store.postgres.test.ts');

describe.skipIf(!available)('on PostgreSQL', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createDatabase();
  });
  afterAll(() => database?.drop());

  inquiryStoreContract('PostgreSQL', async () => {
    const db = openDatabase({ engine: 'postgres', url: database.url });
    await migrateToLatest(db);
    const others: Db[] = [];
    return {
      store: sqlInquiryStore(db),
      async another() {
        others.push(openDatabase({ engine: 'postgres', url: database.url }));
        return sqlInquiryStore(others.at(-1)!);
      },
      async close() {
        for (const handle of [db, ...others]) await handle.destroy();
        await database.truncate();
      },
    };
  });
});
