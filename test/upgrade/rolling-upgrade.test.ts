// A rolling upgrade from the release before on PostgreSQL + Redis behind nginx, as docs/deploy.md
// ("Upgrading") gives it, under steady traffic: two nodes of the release before, 200,000 inquiries; a node
// of this release starts beside them and migrates; then each old node is taken out of nginx, stopped, and
// replaced. No request fails or waits 3 s, no acknowledged inquiry is lost or delivered twice, tokens work
// across the releases, and the release before starts again on the migrated database (D22).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/app.js';
import { hasNginx, startNginx, type Nginx } from '../support/nginx.js';
import { createDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.js';
import { deleteKeys, MACHINE_REDIS, redisAvailable } from '../support/redis.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { previousRelease, type Release } from './previous-release.js';
import { codeTokens, inquiryBody, registerClient, steadyTraffic, tokenRequest, type Client } from './traffic.js';
import { watchReadiness } from './readiness.js';

const INQUIRIES = 200_000;
const ready = (await postgresAvailable('test/upgrade/rolling-upgrade.test.ts')) && (await redisAvailable('test/upgrade/rolling-upgrade.test.ts'));
if (!hasNginx) process.stderr.write('SKIPPED test/upgrade/rolling-upgrade.test.ts: no /usr/sbin/nginx; .ci/run installs Debian nginx-light.\n');

describe.skipIf(!ready || !hasNginx)('a rolling upgrade from the release before, on PostgreSQL and Redis behind nginx', () => {
  let release: Release;
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  let dir: string;
  let nginx: Nginx;
  const prefix = `portico-upgrade-${randomBytes(6).toString('hex')}:`;
  const nodes: ServeProcess[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    release = await previousRelease();
    database = await createDatabase();
    smtp = await startSmtpServer();
    dir = await mkdtemp(join(tmpdir(), 'portico-upgrade-'));
  }, 900_000);
  afterAll(async () => {
    await nginx?.close();
    for (const node of nodes) if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL');
    await smtp?.close();
    await database?.drop();
    await deleteKeys(prefix);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const oldNode = async (port: number) => {
    const node = await startServe(env, { port, cwd: release.dir, command: [...release.cli, 'serve'] });
    nodes.push(node);
    return node;
  };
  const newNode = async (port: number) => {
    const node = await startServe(env, { port, withinMs: 60_000 });
    nodes.push(node);
    return node;
  };
  const stop = async (node: ServeProcess) => {
    node.child.kill('SIGTERM');
    expect(await node.exited).toEqual({ code: 0, signal: null });
  };

  it('fails no request, loses or repeats no inquiry, and leaves a way back', async () => {
    const [p1, p2, p3, front] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const base = `http://127.0.0.1:${front}`;
    env = { DATABASE_URL: database.url, REDIS_URL: MACHINE_REDIS, REDIS_KEY_PREFIX: prefix, PUBLIC_URL: base, TRUST_PROXY: '1', SMTP_URL: smtp.url, RATE_LIMITS: 'off', LOG_LEVEL: 'warn' };
    const old1 = await oldNode(p1);
    const old2 = await oldNode(p2);
    await fillInquiries(database.url, INQUIRIES);
    nginx = await startNginx(dir, front, [`127.0.0.1:${p1}`, `127.0.0.1:${p2}`]);

    const client = await registerClient(base);
    const traffic = steadyTraffic(base, client, (await codeTokens(base, client)).refresh_token!);
    const oldReadiness = [watchReadiness(old1.url), watchReadiness(old2.url)];
    await pause(3_000);

    // The first node of this release migrates while the old ones serve.
    const started = performance.now();
    const new1 = await newNode(p3);
    const migratedInMs = performance.now() - started;
    await nginx.route([p1, p2, p3].map((port) => `127.0.0.1:${port}`));
    await tokensWorkAcross(base, old1.url, new1.url, client);

    // Each old node: out of nginx, stopped, replaced by a node of this release.
    await nginx.route([p2, p3].map((port) => `127.0.0.1:${port}`));
    const old1Readiness = await oldReadiness[0]!.stop();
    await stop(old1);
    const new2 = await newNode(p1);
    await nginx.route([p1, p2, p3].map((port) => `127.0.0.1:${port}`));
    await pause(2_000);
    await nginx.route([p1, p3].map((port) => `127.0.0.1:${port}`));
    const old2Readiness = await oldReadiness[1]!.stop();
    await stop(old2);
    await backfilled(database.url);
    await pause(2_000);
    const { outcomes, acknowledged } = await traffic.stop();

    const failed = outcomes.filter((o) => o.status < 200 || o.status > 299);
    expect(failed, JSON.stringify(failed.slice(0, 5))).toEqual([]);
    const slow = outcomes.filter((o) => o.ms > 3_000);
    expect(slow, JSON.stringify(slow.slice(0, 5))).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(300);
    for (const readiness of [old1Readiness, old2Readiness]) {
      expect(readiness.slowest, 'an old node answered /readyz slower than 1 s').toBeLessThan(1_000);
      expect(readiness.statuses).toEqual([200]);
    }
    // Every acknowledged inquiry is stored and was delivered once; no message went twice.
    const messageIds = smtp.messages.map((message) => message.messageId);
    expect(new Set(messageIds).size).toBe(messageIds.length);
    for (const marker of acknowledged) {
      expect(
        smtp.messages.filter((message) => message.text?.includes(marker)),
        marker,
      ).toHaveLength(1);
    }
    expect(await storedMarkers(database.url)).toEqual(expect.arrayContaining(acknowledged));

    // The way back: the release before starts on the migrated database and serves beside this one.
    const back = await oldNode(p2);
    expect((await fetch(`${back.url}/readyz`)).status).toBe(200);
    const answer = await fetch(`${back.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: inquiryBody('after-rolling-back') });
    expect(answer.status).toBe(200);
    process.stderr.write(
      `upgrade: ${outcomes.length} requests, ${acknowledged.length} inquiries acknowledged; the first new node migrated ${INQUIRIES} inquiries and listened in ${Math.round(migratedInMs)} ms\n`,
    );
    for (const node of [new1, new2, back]) await stop(node);
  }, 600_000);
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An access token from each release works on the other, and a refresh token goes back and forth between them. */
async function tokensWorkAcross(base: string, oldUrl: string, newUrl: string, client: Client): Promise<void> {
  for (const [issuer, user] of [
    [oldUrl, newUrl],
    [newUrl, oldUrl],
  ] as const) {
    const granted = await tokenRequest(issuer, client, { grant_type: 'client_credentials', scope: 'contact:write' });
    expect(granted.status).toBe(200);
    const used = await fetch(`${user}/api/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${granted.body.access_token}` },
      body: inquiryBody(`token-from-${issuer === oldUrl ? 'old' : 'new'}`),
    });
    expect(used.status, `a token of ${issuer} used at ${user}`).toBe(200);
  }
  const fromOld = await codeTokens(base, client, oldUrl);
  const onNew = await tokenRequest(newUrl, client, { grant_type: 'refresh_token', refresh_token: fromOld.refresh_token! });
  expect(onNew.status).toBe(200);
  const backOnOld = await tokenRequest(oldUrl, client, { grant_type: 'refresh_token', refresh_token: onNew.body.refresh_token! });
  expect(backOnOld.status).toBe(200);
}

/** `count` delivered inquiries, as the release before stored them (no normalized e-mail), in one statement. */
async function fillInquiries(url: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `insert into inquiries (id, created_at, status, channel, name, email, message, locale, client_id, remote_ip, idempotency_key, fingerprint, attempts, attempted_at, last_error, message_id, sent_at)
       select 'filled-' || i, 1700000000000 + i * 1000, 'sent', 'web', 'Visitor ' || i, 'Visitor' || i || '@Example.com', 'An inquiry of last year, number ' || i, 'en', null, '192.0.2.1', null, md5(i::text), 1, 1700000000000 + i * 1000, null, '<filled-' || i || '@portico.example>', 1700000000000 + i * 1000 + 500
       from generate_series(1, $1::int) as i`,
      [count],
    );
    await client.query('analyze inquiries');
  } finally {
    await client.end();
  }
}

/** Waits until a node of this release has finished the backfill, every row with its normalized e-mail. */
async function backfilled(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const { rows } = await client.query("select count(*)::int as n from portico_schema_migrations where name = '0009_fill_normalized_email'");
      if (rows[0].n === 1) break;
      if (Date.now() > deadline) throw new Error('the backfill did not finish within 2 minutes');
      await pause(250);
    }
    const { rows } = await client.query('select count(*)::int as n from inquiries where email_normalized is null');
    expect(rows[0].n).toBe(0);
  } finally {
    await client.end();
  }
}

async function storedMarkers(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ marker: string }>("select substring(message from 'Sent during the upgrade: (.*)$') as marker from inquiries where message like 'Sent during the upgrade: %'");
    return rows.map((row) => row.marker);
  } finally {
    await client.end();
  }
}
