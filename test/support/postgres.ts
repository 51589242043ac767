// Throwaway PostgreSQL databases on the machine's server (127.0.0.1:5432, trust auth): each test file
// makes its own and drops it; with no server the suites say they are skipped.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const ADMIN_URL = process.env.PORTICO_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** True when the server answers; otherwise prints why the calling suite is skipped. */
export async function postgresAvailable(suite: string): Promise<boolean> {
  try {
    await admin((client) => client.query('select 1'));
    return true;
  } catch (error) {
    console.warn(`SKIPPED ${suite}: PostgreSQL does not answer at ${ADMIN_URL} (${(error as Error).message}); .ci/run requires it.`);
    return false;
  }
}

export interface TestDatabase {
  url: string;
  /** Empties every table, keeping the schema. */
  truncate(): Promise<void>;
  drop(): Promise<void>;
}

export async function createDatabase(): Promise<TestDatabase> {
  const name = `portico_test_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`create database ${name}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async truncate() {
      const client = new pg.Client({ connectionString: url.href });
      await client.connect();
      try {
        const { rows } = await client.query<{ tablename: string }>(
          "select tablename from pg_tables where schemaname = 'public' and tablename not like 'portico_migrations%' and tablename <> 'portico_schema_migrations'",
        );
        if (rows.length) await client.query(`truncate ${rows.map((row) => `"${row.tablename}"`).join(', ')}`);
      } finally {
        await client.end();
      }
    },
    // WITH (FORCE) ends the connections a test left open (PostgreSQL 13+).
    drop: () => admin((client) => client.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}
