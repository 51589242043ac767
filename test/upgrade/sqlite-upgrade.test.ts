// A one-node upgrade on SQLite: a database of the release before with 150,000 inquiries is served again by
// this release within twice the time a plain restart of the release before takes; the backfill runs after
// the node is ready, beside its requests; and the release before starts again on the database (D22).
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/app.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { previousRelease, type Release } from './previous-release.js';
import { inquiryBody } from './traffic.js';

const INQUIRIES = 150_000;

describe('a one-node upgrade on SQLite', () => {
  let release: Release;
  let dir: string;
  let path: string;
  let port: number;

  beforeAll(async () => {
    release = await previousRelease();
    dir = await mkdtemp(join(tmpdir(), 'portico-upgrade-sqlite-'));
    path = join(dir, 'portico.sqlite');
    port = await freePort();
  }, 900_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const env = () => ({ DATABASE_URL: `sqlite:${path}`, RATE_LIMITS: 'off', LOG_LEVEL: 'info' });
  /** Starts a node and answers how long it took from the start of the process to /readyz 200. */
  const readyAfter = async (start: () => Promise<ServeProcess>): Promise<{ node: ServeProcess; ms: number }> => {
    const started = performance.now();
    const node = await start();
    while ((await fetch(`${node.url}/readyz`)).status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
    return { node, ms: performance.now() - started };
  };
  const old = () => startServe(env(), { port, cwd: release.dir, command: [...release.cli, 'serve'] });
  const stop = async (node: ServeProcess) => {
    node.child.kill('SIGTERM');
    expect(await node.exited).toEqual({ code: 0, signal: null });
  };

  it('is ready within twice a plain restart, backfills while it serves, and the release before starts on it again', async () => {
    await stop((await readyAfter(old)).node);
    fill(path, INQUIRIES);
    // The plain restart, as the release before does it every day: the best of two.
    const plain = [];
    for (let i = 0; i < 2; i++) {
      const { node, ms } = await readyAfter(old);
      plain.push(ms);
      await stop(node);
    }
    const fileBefore = await sizeOf(path);

    const { node, ms } = await readyAfter(() => startServe(env(), { port, withinMs: 60_000 }));
    const restart = Math.min(...plain);
    expect(ms).toBeLessThanOrEqual(2 * restart);
    // It serves while the backfill runs, and the backfill finishes; the write-ahead log stays small meanwhile.
    expect((await fetch(`${node.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: inquiryBody('during-the-backfill') })).status).toBe(200);
    const deadline = Date.now() + 120_000;
    let largestLog = 0;
    while (!backfilled(path)) {
      expect(Date.now()).toBeLessThan(deadline);
      largestLog = Math.max(largestLog, await sizeOf(`${path}-wal`));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const fileAfter = await sizeOf(path);
    const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
    process.stderr.write(
      `upgrade on SQLite: ready in ${Math.round(ms)} ms against a plain restart of ${Math.round(restart)} ms; the file grew from ${mb(fileBefore)} to ${mb(fileAfter)} MB, the write-ahead log at most ${mb(largestLog)} MB\n`,
    );
    expect(largestLog).toBeLessThan(32e6);
    await stop(node);
    expect(node.output()).toContain('migration backfill finished');

    // The way back: the release before serves the migrated database.
    const { node: back } = await readyAfter(old);
    expect((await fetch(`${back.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: inquiryBody('after-rolling-back') })).status).toBe(200);
    await stop(back);
  }, 600_000);
});

/** `count` delivered inquiries as the release before stored them, in one statement. */
function fill(path: string, count: number): void {
  const sqlite = new Database(path);
  try {
    sqlite
      .prepare(
        `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
         insert into inquiries (id, created_at, status, channel, name, email, message, locale, client_id, remote_ip, idempotency_key, fingerprint, attempts, attempted_at, last_error, message_id, sent_at)
         select 'filled-' || i, 1700000000000 + i * 1000, 'sent', 'web', 'Visitor ' || i, 'Visitor' || i || '@Example.com', 'An inquiry of last year, number ' || i, 'en', null, '192.0.2.1', null, hex(randomblob(16)), 1, 1700000000000 + i * 1000, null, '<filled-' || i || '@portico.example>', 1700000000000 + i * 1000 + 500
         from n`,
      )
      .run(count);
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    sqlite.close();
  }
}

function backfilled(path: string): boolean {
  const sqlite = new Database(path, { readonly: true });
  try {
    const done = sqlite.prepare("select count(*) from portico_schema_migrations where name = '0009_fill_normalized_email'").pluck().get() === 1;
    return done && sqlite.prepare('select count(*) from inquiries where email_normalized is null').pluck().get() === 0;
  } finally {
    sqlite.close();
  }
}

const sizeOf = (file: string) =>
  stat(file).then(
    (s) => s.size,
    () => 0,
  );
