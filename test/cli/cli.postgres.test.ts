// The operator's commands on PostgreSQL: several nodes may run `portico migrate` at once, and the
// inquiry and client commands work on the shared database (docs/deploy.md).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/adapters/sql/database.js';
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
    const { rows: online } = await client.query<{ name: string }>('select name from portico_schema_migrations order by name');
    await client.end();
    // Kysely's table holds what the release before reads, and no more: it starts on this schema (D22).
    expect(rows.map((row) => row.name)).toEqual(['0001_inquiries', '0002_oauth', '0003_inquiries_lighter_indexes', '0004_delivery', '0005_retention', '0006_failed_inquiries']);
    expect(online.map((row) => row.name)).toEqual(['0007_normalized_email', '0008_screening', '0009_fill_normalized_email', '0010_topic_and_consent', '0011_delivery_attempts']);
  });

  it('lists inquiries and clients of the shared database', async () => {
    expect((await cli('inquiries', 'list')).stdout).toBe('no inquiries\n');
    const clients = await cli('clients', 'list');
    expect(clients.code).toBe(0);
    expect(lines(clients.stdout).length).toBeGreaterThanOrEqual(1);
  });

  it('exports and erases the inquiries of every case of an address and of its fullwidth domain', async () => {
    const variants = ['Privacy.Case@Example.COM', 'privacy.case@example.com', 'PRIVACY.CASE@example.com', 'privacy.case@ｅｘａｍｐｌｅ．ｃｏｍ'];
    const engine = openDatabase({ engine: 'postgres', url: database.url });
    const store = engine.inquiries;
    for (const [n, email] of [...variants, 'someone.else@example.com'].entries()) {
      await store.create({
        id: `pg-${n}`,
        createdAt: 1_000 + n,
        status: 'sent',
        channel: 'api',
        name: 'Pat',
        email,
        message: 'Hello',
        locale: 'en',
        topic: null,
        consent: null,
        clientId: null,
        remoteIp: '192.0.2.1',
        idempotencyKey: null,
        fingerprint: 'f'.repeat(64),
        contentHash: 'c'.repeat(64),
        spamReasons: [],
      });
    }
    await engine.destroy();

    const exported = await cli('inquiries', 'export', '--email', 'privacy.case@example.com');
    expect(exported.code).toBe(0);
    expect((JSON.parse(exported.stdout) as { inquiries: { email: string }[] }).inquiries.map((i) => i.email).sort()).toEqual([...variants].sort());
    expect(lines(exported.stderr)).toEqual(['4 inquiries matched privacy.case@example.com (compared as privacy.case@example.com)']);

    const erased = await cli('inquiries', 'erase', '--email', 'PRIVACY.case@EXAMPLE.com');
    expect(erased.code).toBe(0);
    expect(lines(erased.stdout).at(-1)).toBe('erased 4 inquiries, with their outbox copies');
    const left = lines((await cli('inquiries', 'list', '--json')).stdout).map((line) => (JSON.parse(line) as { email: string }).email);
    expect(left).toEqual(['someone.else@example.com']);
  });

  it('says clearly when the database does not answer, and exits 1', async () => {
    const result = await runCli(['inquiries', 'list'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/database/i);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
