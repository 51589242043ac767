// SIGKILL under load: `portico serve` as a real child process, killed in the middle of a
// burst of inquiries, registrations or token requests, loses nothing it acknowledged, on SQLite and
// on PostgreSQL, and serves again after a restart.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, postgresAvailable } from '../support/postgres.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

const BURST = 200;
const IN_FLIGHT = 30;
const KILL_AFTER_OK = 50;

interface Storage {
  databaseUrl: string;
  rows<T>(text: string): Promise<T[]>;
  /** Throws when the database is damaged. */
  checkIntegrity(): Promise<void>;
  close(): Promise<void>;
}

const engines: { name: string; available: boolean; open(): Promise<Storage> }[] = [
  {
    name: 'SQLite',
    available: true,
    async open() {
      const dir = await mkdtemp(join(tmpdir(), 'portico-crash-'));
      const path = join(dir, 'p.sqlite');
      const read = <T>(work: (db: SQLite.Database) => T): T => {
        const db = new SQLite(path, { readonly: true, fileMustExist: true });
        try {
          return work(db);
        } finally {
          db.close();
        }
      };
      return {
        databaseUrl: `sqlite:${path}`,
        rows: async <T>(text: string) => read((db) => db.prepare(text).all() as T[]),
        async checkIntegrity() {
          expect(read((db) => db.pragma('integrity_check', { simple: true }))).toBe('ok');
        },
        close: () => rm(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'PostgreSQL',
    available: await postgresAvailable('the PostgreSQL half of test/reliability/crash.test.ts'),
    async open() {
      const database = await createDatabase();
      const query = async <T>(text: string) => {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          return (await client.query(text)).rows as T[];
        } finally {
          await client.end();
        }
      };
      return {
        databaseUrl: database.url,
        rows: query,
        // A killed client cannot damage PostgreSQL's files; what can go wrong is a half-written
        // transaction, which the row checks of each test would show.
        checkIntegrity: async () => void (await query('select 1')),
        close: () => database.drop(),
      };
    },
  },
];

type Outcome<T> = { status: number | 'no answer'; value?: T };

/** Runs `send` BURST times, IN_FLIGHT at once, and SIGKILLs the server once KILL_AFTER_OK were acknowledged. */
async function burst<T>(server: ServeProcess, send: (i: number) => Promise<{ status: number; value?: T }>): Promise<Outcome<T>[]> {
  const outcomes: Outcome<T>[] = [];
  let next = 0;
  let ok = 0;
  const worker = async () => {
    while (next < BURST && !server.child.killed) {
      const i = next++;
      try {
        const outcome = await send(i);
        outcomes.push(outcome);
        if (outcome.status >= 200 && outcome.status < 300 && ++ok === KILL_AFTER_OK) server.child.kill('SIGKILL');
      } catch {
        outcomes.push({ status: 'no answer' });
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  expect(await server.exited).toEqual({ code: null, signal: 'SIGKILL' });
  const acknowledged = outcomes.filter((o) => o.status !== 'no answer' && o.status < 300);
  expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER_OK);
  expect(acknowledged.length, 'the kill landed before the burst ended').toBeLessThan(BURST);
  expect(
    outcomes.filter((o) => o.status !== 'no answer' && o.status >= 300),
    'every answer before the kill was a success',
  ).toEqual([]);
  return acknowledged;
}

const timeout = AbortSignal.timeout.bind(AbortSignal);
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const inquiry = (email: string) => JSON.stringify({ name: 'Burst Tester', email, message: 'Crash test inquiry.', privacy: true });

async function token(url: string, authorization: string): Promise<Response> {
  return fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    signal: timeout(10_000),
  });
}

describe.each(engines)('a server killed with SIGKILL in the middle of a burst, on $name', ({ name, available, open }) => {
  let storage: Storage;
  let smtp: TestSmtpServer;
  const servers: ServeProcess[] = [];
  // A restart keeps the port: tokens are bound to PUBLIC_URL, which defaults to the listening address.
  const start = async () => {
    const port = servers.length ? Number(new URL(servers.at(-1)!.url).port) : undefined;
    const server = await startServe({ DATABASE_URL: storage.databaseUrl, SMTP_URL: smtp.url, MAIL_FROM: 'web@portico.example', MAIL_TO: 'team@portico.example', RATE_LIMITS: 'off' }, { port });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    if (!available) return;
    storage = await open();
    smtp = await startSmtpServer('accept');
  });
  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await smtp?.close();
    await storage?.close();
  });

  it.skipIf(!available)('keeps every inquiry it answered 200 as sent and e-mailed', { timeout: 30_000 }, async () => {
    const acknowledged = await burst(await start(), async (i) => {
      const email = `burst-${i}@example.com`;
      const response = await fetch(`${servers.at(-1)!.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: inquiry(email), signal: timeout(10_000) });
      await response.arrayBuffer().catch(() => undefined);
      return { status: response.status, value: email };
    });
    const server = await start();
    const after = await fetch(`${server.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: inquiry('after-crash@example.com') });
    expect(after.status).toBe(200);

    await storage.checkIntegrity();
    const rows = await storage.rows<{ id: string; email: string; status: string }>('select id, email, status from inquiries');
    const sent = new Map(rows.filter((r) => r.status === 'sent').map((r) => [r.email, r.id]));
    const emails = [...acknowledged.map((o) => o.value!), 'after-crash@example.com'];
    expect(
      emails.filter((email) => !sent.has(email)),
      'acknowledged inquiries missing from the table or not sent',
    ).toEqual([]);
    const mailedIds = new Set(smtp.raw.map((raw) => /^X-Portico-Inquiry-Id: (\S+)$/im.exec(raw)?.[1]));
    expect(
      emails.filter((email) => !mailedIds.has(sent.get(email))),
      'acknowledged but never e-mailed',
    ).toEqual([]);
  });

  it.skipIf(!available)('keeps every client it answered 201, each able to get a token after the restart', { timeout: 30_000 }, async () => {
    const acknowledged = await burst(await start(), async (i) => {
      const response = await fetch(`${servers.at(-1)!.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: `crash ${i}`, grant_types: ['client_credentials'], scope: 'contact:write' }),
        signal: timeout(10_000),
      });
      const body = (await response.json()) as { client_id: string; client_secret: string };
      return { status: response.status, value: body };
    });
    const server = await start();
    await storage.checkIntegrity();
    const refused: string[] = [];
    for (const { value } of acknowledged) {
      const response = await token(server.url, basic(value!.client_id, value!.client_secret));
      if (response.status !== 200) refused.push(`${value!.client_id}: ${response.status} ${await response.text()}`);
    }
    expect(refused, 'acknowledged registrations lost').toEqual([]);
  });

  it.skipIf(!available)('keeps every access token it answered 200: each still opens /api/contact after the restart', { timeout: 60_000 }, async () => {
    let server = await start();
    const client = (await (
      await fetch(`${server.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_types: ['client_credentials'], scope: 'contact:write' }),
      })
    ).json()) as {
      client_id: string;
      client_secret: string;
    };
    const acknowledged = await burst(server, async () => {
      const response = await token(server.url, basic(client.client_id, client.client_secret));
      const body = (await response.json()) as { access_token: string };
      return { status: response.status, value: body.access_token };
    });
    server = await start();
    await storage.checkIntegrity();
    const refused: number[] = [];
    for (const { value } of acknowledged) {
      const response = await fetch(`${server.url}/api/contact`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${value}` },
        body: inquiry('token-check@example.com'),
      });
      await response.arrayBuffer();
      if (response.status !== 200) refused.push(response.status);
    }
    expect(refused, `acknowledged tokens refused after the restart (${name})`).toEqual([]);
  });
});
