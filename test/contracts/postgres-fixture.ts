// A store contract on PostgreSQL: one database for the file, emptied between tests; `another()` is a
// second store on its own pool, as another node would have.
import { afterAll, beforeAll, describe } from 'vitest';
import { openDatabase, type Engine } from '../../src/adapters/sql/database.js';
import { migrateToLatest } from '../../src/adapters/sql/migration-runner.js';
import { createDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.js';

export interface ContractFixture<Store> {
  store: Store;
  another(): Promise<Store>;
  close(): Promise<void>;
}

/** Runs `contract` against stores made by `make` on a throwaway database; skipped, saying so, without a server. */
export async function contractOnPostgres<Store>(file: string, make: (engine: Engine) => Store, contract: (engine: string, open: () => Promise<ContractFixture<Store>>) => void): Promise<void> {
  const available = await postgresAvailable(file);
  describe.skipIf(!available)('on PostgreSQL', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createDatabase();
    });
    afterAll(() => database?.drop());

    contract('PostgreSQL', async () => {
      const engine = openDatabase({ engine: 'postgres', url: database.url });
      await migrateToLatest(engine);
      const others: Engine[] = [];
      return {
        store: make(engine),
        async another() {
          others.push(openDatabase({ engine: 'postgres', url: database.url }));
          return make(others.at(-1)!);
        },
        async close() {
          for (const handle of [engine, ...others]) await handle.destroy();
          await database.truncate();
        },
      };
    });
  });
}
