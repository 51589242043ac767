// The operator's commands on PostgreSQL: several nodes may run `portico migrate` at once, and the
// inquiry and client commands work on the shared database (docs/deploy.md).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.js';
import { lines, runCli } from './cli-harness.js';

const available = await postgresAvailable('test/cli/cli.postgres.test.ts');

describe.skipIf(!available)('portico on PostgreSQL', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createDatabase();
  });
  afterAll(() => database?.drop());
  const cli = (...args: string[]) => runCli(args, { DATABASE_URL: database.url });

  it('migrates once when four nodes run portico migrate at the same moment', async () => {
    const results = await Promise.all([cli('migrate'), cli('migrate'), cli('migrate'), cli('migrate')]);
    for (const result of results) expect(result).toMatchObject({ code: 0, stdout: 'database is up to date\n', stderr: '' });
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query<{ name: string }>('select name from portico_migrations order by name');
    await client.end();
    expect(rows.map((row) => row.name)).toEqual([
      '0001_inquiries',
      '0002_oauth',
      '0003_inquiries_lighter_indexes',
      '0004_delivery',
      '0005_retention',
      '0006_failed_inquiries',
      '0007_normalized_email',
    ]);
  });

  it('lists inquiries and clients of the shared database', async () => {
    expect((await cli('inquiries', 'list')).stdout).toBe('no inquiries\n');
    const clients = await cli('clients', 'list');
    expect(clients.code).toBe(0);
    expect(lines(clients.stdout).length).toBeGreaterThanOrEqual(1);
  });

  it('says clearly when the database does not answer, and exits 1', async () => {
    const result = await runCli(['inquiries', 'list'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/database/i);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
