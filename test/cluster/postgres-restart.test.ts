// PostgreSQL restarted in the middle of a burst: requests during the outage get 503 with
// Retry-After (never a hang or a crash), /readyz reports it, the node reconnects by itself, and
// every write it acknowledged is there afterwards.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POOL_SIZE } from '../../src/adapters/postgres/pool.js';
import { connectionsTo, residentMb } from '../support/process-stats.js';
import { canRunPrivatePostgres, startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

// SMTP_MAX_CONNECTIONS's default: the node never holds more connections to its relay.
const SMTP_CONNECTIONS = 5;

if (!canRunPrivatePostgres) console.warn('SKIPPED test/cluster/postgres-restart.test.ts: PostgreSQL 15 server binaries are missing (/usr/lib/postgresql/15/bin).');

const inquiry = { name: 'Ana García', email: 'ana@example.com', message: 'A demo for 40 buildings, please.', privacy: true };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Outcome {
  kind: 'contact' | 'token';
  status: number;
  ms: number;
  retryAfter: string | null;
  error?: string;
  /** The Idempotency-Key of an inquiry, or the access token issued. */
  handle: string;
}

describe.skipIf(!canRunPrivatePostgres)('PostgreSQL restarted during a burst', () => {
  let database: PrivatePostgres;
  let smtp: TestSmtpServer;
  let node: ServeProcess;
  let authorization: string;

  beforeAll(async () => {
    database = await startPrivatePostgres();
    smtp = await startSmtpServer();
    node = await startServe({ DATABASE_URL: database.url, SMTP_URL: smtp.url, MAIL_FROM: 'web@portico.example', MAIL_TO: 'team@portico.example', RATE_LIMITS: 'off' });
    const registered = await (
      await fetch(`${node.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_types: ['client_credentials'], scope: 'contact:write' }),
      })
    ).json();
    authorization = `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64')}`;
  }, 30_000);

  afterAll(async () => {
    node?.child.kill('SIGTERM');
    await node?.exited;
    await smtp?.close();
    await database?.destroy();
  });

  const send = async (kind: Outcome['kind']): Promise<Outcome> => {
    const started = Date.now();
    const handle = randomUUID();
    const response =
      kind === 'contact'
        ? await fetch(`${node.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': handle }, body: JSON.stringify(inquiry) })
        : await fetch(`${node.url}/oauth/token`, { method: 'POST', headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
    const body = (await response.json()) as { error?: string; access_token?: string };
    return { kind, status: response.status, ms: Date.now() - started, retryAfter: response.headers.get('retry-after'), error: body.error, handle: body.access_token ?? handle };
  };

  it('answers 503 with Retry-After while it is down, reports it on /readyz, recovers alone and loses nothing acknowledged', async () => {
    // Warm, with the burst's concurrency, so the baseline holds its keep-alive connections and pool.
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        for (let n = 0; n < 10; n++) await send(i % 2 ? 'token' : 'contact');
      }),
    );
    const before = { rss: await residentMb(node.child.pid!) };
    const outcomes: Outcome[] = [];
    let bursting = true;
    // Eight clients in a loop, half inquiries and half token requests.
    const clients = Array.from({ length: 8 }, async (_, i) => {
      while (bursting) outcomes.push(await send(i % 2 ? 'token' : 'contact'));
    });

    await sleep(500);
    await database.stop();
    await sleep(300);
    const duringOutage = await fetch(`${node.url}/readyz`);
    const readiness = { status: duringOutage.status, body: await duringOutage.json() };
    await sleep(700);
    await database.start();
    await sleep(1_500);
    bursting = false;
    await Promise.all(clients);

    expect(readiness).toMatchObject({ status: 503, body: { error: 'not_ready' } });
    const statuses = new Set(outcomes.map((outcome) => outcome.status));
    expect([...statuses].sort()).toEqual([200, 503]);
    for (const outcome of outcomes.filter((o) => o.status === 503)) {
      expect(outcome.error).toBe('store_unavailable');
      expect(Number(outcome.retryAfter)).toBeGreaterThan(0);
    }
    // Never a hang: the slowest answer is bounded by the pool's 3 s connect timeout.
    expect(Math.max(...outcomes.map((outcome) => outcome.ms))).toBeLessThan(5_000);
    // The last answers came after the restart: the node reconnected by itself.
    expect(outcomes.slice(-8).every((outcome) => outcome.status === 200)).toBe(true);
    expect((await fetch(`${node.url}/readyz`)).status).toBe(200);

    // Every acknowledged inquiry is stored, and every acknowledged token works.
    const acknowledged = outcomes.filter((outcome) => outcome.status === 200);
    // Keys are stored under their sender (D14): anonymous web requests from this address.
    const keys = acknowledged.filter((outcome) => outcome.kind === 'contact').map((outcome) => `web@127.0.0.1 ${outcome.handle}`);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query<{ n: string }>('select count(*) as n from inquiries where idempotency_key = any($1)', [keys]);
    await client.end();
    expect(Number(rows[0]!.n)).toBe(keys.length);
    for (const outcome of acknowledged.filter((o) => o.kind === 'token').slice(-20)) {
      const used = await fetch(`${node.url}/api/contact`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${outcome.handle}` },
        body: JSON.stringify(inquiry),
      });
      expect(used.status).toBe(200);
    }
    expect(node.child.exitCode).toBeNull();
    // Bounded: the pools replaced their dead connections instead of adding to them.
    expect(await connectionsTo(node.child.pid!, Number(new URL(database.url).port)), 'connections to PostgreSQL').toBeLessThanOrEqual(POOL_SIZE);
    expect(await connectionsTo(node.child.pid!, Number(new URL(smtp.url).port)), 'connections to the mail server').toBeLessThanOrEqual(SMTP_CONNECTIONS);
    expect(await residentMb(node.child.pid!), 'resident MB after recovery').toBeLessThan(before.rss + 60);
  }, 30_000);
});
