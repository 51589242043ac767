// The OAuthStore contract on PostgreSQL: one database for the file, emptied between tests.
import { afterAll, beforeAll, describe } from 'vitest';
import { openDatabase, type Db } from '../../src/adapters/sql/database.js';
import { migrateToLatest } from '../../src/adapters/sql/migrations.js';
import { sqlOAuthStore } from '../../src/adapters/sql/oauth-store.js';
import { createDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.js';
import { oauthStoreContract } from './oauth-store.contract.js';

const available = await postgresAvailable('test/contracts/oauth-store.postgres.test.ts');

describe.skipIf(!available)('on PostgreSQL', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createDatabase();
  });
  afterAll(() => database?.drop());

  oauthStoreContract('PostgreSQL', async () => {
    const db = openDatabase({ engine: 'postgres', url: database.url });
    await migrateToLatest(db);
    const others: Db[] = [];
    return {
      store: sqlOAuthStore(db),
      async another() {
        others.push(openDatabase({ engine: 'postgres', url: database.url }));
        return sqlOAuthStore(others.at(-1)!);
      },
      async close() {
        for (const handle of [db, ...others]) await handle.destroy();
        await database.truncate();
      },
    };
  });
});
