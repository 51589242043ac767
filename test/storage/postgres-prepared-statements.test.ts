// The token endpoint's insert runs as a named prepared statement on PostgreSQL: on the machine's server,
// through a migration that adds columns, and behind PgBouncer in transaction mode, which does not track
// prepared statements (Debian's 1.18).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { namedStatements, preparedMark } from '../../src/adapters/postgres/prepared-statements.js';
import { freePort } from '../support/app.js';
import { hasPgBouncer, PGBOUNCER, startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { createDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

const available = await postgresAvailable('test/storage/postgres-prepared-statements.test.ts');
if (available && !hasPgBouncer) console.warn(`SKIPPED the PgBouncer case of test/storage/postgres-prepared-statements.test.ts: no ${PGBOUNCER}; .ci/run installs Debian's pgbouncer.`);

const marked = (name: string, text: string) => `${preparedMark(name)}${text}`;

describe.skipIf(!available)('named prepared statements on PostgreSQL', () => {
  let database: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    database = await createDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  const preparedOnThisConnection = async () => (await client.query<{ name: string }>('select name from pg_prepared_statements order by name')).rows.map((row) => row.name);

  it('prepares a statement begun by preparedAs under its name, and leaves the others unnamed', async () => {
    const run = namedStatements();
    await run(client, marked('portico_twice', 'select $1::int * 2 as twice'), [21]);
    await run(client, 'select $1::int + 1 as next', [1]);
    expect(await preparedOnThisConnection()).toEqual(['portico_twice']);
    const again = (await run(client, marked('portico_twice', 'select $1::int * 2 as twice'), [4])) as pg.QueryResult;
    expect(again.rows).toEqual([{ twice: 8 }]);
  });

  it('runs a statement unnamed, from then on, when the connection refuses its name as a pooler would', async () => {
    // The server connection already holds a statement by that name, which this client never made:
    // what a transaction-mode pooler's shared server connection answers (42P05).
    await client.query('prepare portico_taken as select 1');
    const run = namedStatements();
    const first = (await run(client, marked('portico_taken', 'select $1::text as said'), ['hello'])) as pg.QueryResult;
    expect(first.rows).toEqual([{ said: 'hello' }]);
    const later = (await run(client, marked('portico_later', 'select $1::text as said'), ['again'])) as pg.QueryResult;
    expect(later.rows).toEqual([{ said: 'again' }]);
    expect(await preparedOnThisConnection()).not.toContain('portico_later');
  });

  it('passes on any other error of a named statement', async () => {
    const run = namedStatements();
    await expect(run(client, marked('portico_broken', 'select $1::int / 0'), [1])).rejects.toMatchObject({ code: '22012' });
  });
});

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

async function registeredClient(node: string): Promise<string> {
  const response = await fetch(`${node}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'prepared', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic' }),
  });
  expect(response.status).toBe(201);
  const { client_id: id, client_secret: secret } = (await response.json()) as { client_id: string; client_secret: string };
  return basic(id, secret);
}

/** `count` client_credentials tokens asked for at once; the statuses that came back. */
async function tokens(node: string, authorization: string, count: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, () =>
      fetch(`${node}/oauth/token`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'contact:write' }),
      }).then(async (response) => (await response.arrayBuffer(), response.status)),
    ),
  );
}

describe.skipIf(!available)('the token endpoint on PostgreSQL', () => {
  let database: TestDatabase;
  let bouncer: PgBouncer | undefined;
  const nodes: ServeProcess[] = [];

  beforeAll(async () => {
    database = await createDatabase();
  });

  afterAll(async () => {
    for (const node of nodes) node.child.kill('SIGTERM');
    await Promise.all(nodes.map((node) => node.exited));
    await bouncer?.close();
    await database?.drop();
  });

  it("issues tokens before and after another node's migration adds columns to the tables its insert reads", async () => {
    const node = await startServe({ DATABASE_URL: database.url, RATE_LIMITS: 'off' });
    nodes.push(node);
    const authorization = await registeredClient(node.url);
    expect(new Set(await tokens(node.url, authorization, 20))).toEqual(new Set([200]));
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query('alter table oauth_tokens add column issued_by text');
      await admin.query('alter table oauth_clients add column owner text');
    } finally {
      await admin.end();
    }
    expect(new Set(await tokens(node.url, authorization, 20))).toEqual(new Set([200]));
  }, 30_000);

  it.skipIf(!hasPgBouncer)(
    'issues every token behind PgBouncer in transaction mode, which shares its server connections between clients',
    async () => {
      // Fewer server connections than the node's pool: its client connections take turns on them.
      bouncer = await startPgBouncer(database.url, await freePort(), 3);
      // Sixty token requests under way at once from this one address, round after round: more than the share
      // of connections one address may hold (D19), which this test is not about. Node 24's fetch keeps more
      // connections than it uses, and the node's making room by closing an idle one raced a request sent on it.
      const node = await startServe({ DATABASE_URL: bouncer.url, RATE_LIMITS: 'off', MAX_CONNECTIONS_PER_ADDRESS: '10000' });
      nodes.push(node);
      const authorization = await registeredClient(node.url);
      for (let round = 0; round < 5; round++) expect(new Set(await tokens(node.url, authorization, 60))).toEqual(new Set([200]));
    },
    60_000,
  );
});
