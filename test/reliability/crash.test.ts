// SIGKILL under load: `portico serve` as a real child process loses no inquiry it answered 200.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

const BURST = 200;
const IN_FLIGHT = 30;
const KILL_AFTER_OK = 50;

type Server = ServeProcess;

let dir: string | undefined;
let smtp: TestSmtpServer | undefined;
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  await smtp?.close();
  smtp = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('a server killed with SIGKILL in the middle of a burst of inquiries', () => {
  it('keeps every inquiry it answered 200 as sent, and serves again after a restart', { timeout: 30_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-crash-'));
    smtp = await startSmtpServer('accept');
    const database = join(dir, 'p.sqlite');

    const first = await startServer(database, smtp.url);
    const outcomes = await burst(first);
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const acknowledged = outcomes.filter((o) => o.status === 200).map((o) => o.email);
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER_OK);
    expect(acknowledged.length, 'the kill landed before the burst ended').toBeLessThan(BURST);
    expect(outcomes.filter((o) => o.status !== 200 && o.status !== 'no answer'), 'every answer before the kill was 200').toEqual([]);

    const second = await startServer(database, smtp.url);
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    const after = await postInquiry(second.url, 'after-crash@example.com');
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ ok: true });

    const sqlite = new SQLite(database, { readonly: true, fileMustExist: true });
    try {
      expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
      const rows = sqlite.prepare('select id, email, status from inquiries').all() as { id: string; email: string; status: string }[];
      const sent = new Map(rows.filter((r) => r.status === 'sent').map((r) => [r.email, r.id]));
      const lost = [...acknowledged, 'after-crash@example.com'].filter((email) => !sent.has(email));
      expect(lost, 'acknowledged inquiries missing from the table or not sent').toEqual([]);
      // And each acknowledged inquiry's e-mail reached the SMTP server.
      const mailedIds = new Set(smtp.raw.map((raw) => /^X-Portico-Inquiry-Id: (\S+)$/im.exec(raw)?.[1]));
      expect(acknowledged.filter((email) => !mailedIds.has(sent.get(email))), 'acknowledged but never e-mailed').toEqual([]);
    } finally {
      sqlite.close();
    }
  });
});

/** Fires BURST inquiries, IN_FLIGHT at a time, and SIGKILLs the server when KILL_AFTER_OK have been answered 200. */
async function burst(server: Server): Promise<{ email: string; status: number | 'no answer' }[]> {
  const outcomes: { email: string; status: number | 'no answer' }[] = [];
  let next = 0;
  let ok = 0;
  const worker = async () => {
    while (next < BURST && !server.child.killed) {
      const email = `burst-${next++}@example.com`;
      try {
        const response = await postInquiry(server.url, email);
        await response.arrayBuffer().catch(() => undefined);
        outcomes.push({ email, status: response.status });
        if (response.status === 200 && ++ok === KILL_AFTER_OK) server.child.kill('SIGKILL');
      } catch {
        outcomes.push({ email, status: 'no answer' });
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return outcomes;
}

function postInquiry(url: string, email: string): Promise<Response> {
  return fetch(`${url}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Burst Tester', email, message: 'Crash test inquiry.', privacy: true }),
    signal: AbortSignal.timeout(10_000),
  });
}

async function startServer(database: string, smtpUrl: string): Promise<Server> {
  const server = await startServe({ DATABASE_URL: `sqlite:${database}`, SMTP_URL: smtpUrl, RATE_LIMITS: 'off' });
  children.push(server.child);
  return server;
}
