// Runs the real `portico` command as a child process on a clean environment, and seeds inquiries through
// the HTTP API, or by the thousand straight through the store.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../src/adapters/sql/database.js';
import { migrateToLatest } from '../../src/adapters/sql/migration-runner.js';
import type { NewInquiry } from '../../src/ports/inquiry-store.js';
import { inquiry as anInquiry, startApp } from '../support/app.js';
import type { TestSmtpServer } from '../support/smtp-server.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI as installed: `npm test` builds dist/ before it runs the suites. */
export const CLI = 'dist/cli.js';

/** `node dist/cli.js ...args` with only PATH and `env`: no inherited secrets. Run from `cwd` (the repository by default). */
export function runCli(args: string[], env: Record<string, string>, cwd = ROOT): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, CLI), ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The non-empty lines of a command's output. */
export const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

export interface Workspace {
  dir: string;
  /** The environment every command of the test runs with. */
  env: Record<string, string>;
  cli(...args: string[]): Promise<CliResult>;
  remove(): Promise<void>;
}

/** A temporary directory holding the SQLite file `p.sqlite` the commands use. */
export async function workspace(env: Record<string, string> = {}): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-cli-'));
  const fullEnv = { DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`, ...env };
  return {
    dir,
    env: fullEnv,
    cli: (...args) => runCli(args, fullEnv),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface Seeded {
  sent: string;
  failed: string;
  spam: string;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let seedings = 0;

/**
 * Posts three inquiries to the real app on the workspace's database, oldest first: one delivered,
 * one the SMTP server refuses (failed), one with the honeypot filled (spam). Closes the app after.
 */
export async function seedInquiries(space: Workspace, smtp: TestSmtpServer): Promise<Seeded> {
  const api = await startApp({ ...space.env, SMTP_URL: smtp.url, RATE_LIMITS: 'off' }, { dir: space.dir });
  // Each seeding's inquiries are its own: the same ones again would be duplicates of the first (D20).
  const inquiry = (fields: Record<string, unknown>) => anInquiry({ ...fields, message: `We manage 40 buildings and would like a demo. Seeding ${++seedings}.` });
  try {
    smtp.mode = 'accept';
    const sent = await api.post('/api/contact', inquiry({ name: 'Sent Sender', email: 'sent@example.com' }));
    if (sent.status !== 200) throw new Error(`seeding the sent inquiry answered ${sent.status}`);
    await pause(5);
    smtp.mode = 'reject-rcpt';
    const failed = await api.post('/api/contact', inquiry({ name: 'Failed Sender', email: 'failed@example.com', locale: 'en' }));
    if (failed.status !== 502) throw new Error(`seeding the failed inquiry answered ${failed.status}`);
    await pause(5);
    smtp.mode = 'accept';
    const spam = await api.post('/api/contact', inquiry({ name: 'Spam Bot', email: 'bot@example.com', website: 'http://spam.example' }));
    if (spam.status !== 200) throw new Error(`seeding the spam inquiry answered ${spam.status}`);
    // Oldest first, so the inquiries just posted win over those of an earlier seeding of the same database.
    const byEmail = new Map((await api.deps.inquiries.list({ limit: 1000 })).reverse().map((i) => [i.email, i.id]));
    return { sent: byEmail.get('sent@example.com')!, failed: byEmail.get('failed@example.com')!, spam: byEmail.get('bot@example.com')! };
  } finally {
    smtp.mode = 'accept';
    smtp.messages.length = 0;
    smtp.raw.length = 0;
    await api.close();
  }
}

/**
 * `count` sent inquiries written into the workspace's database through the store, 500 at a time:
 * `inquiry-000000` on, created at 1,000 ms (1970) on; `shape` sets fields of the i-th.
 */
export async function storeInquiries(space: Workspace, count: number, shape: (i: number) => Partial<NewInquiry> = () => ({})): Promise<void> {
  const engine = openDatabase({ engine: 'sqlite', path: join(space.dir, 'p.sqlite') });
  try {
    await migrateToLatest(engine);
    const store = engine.inquiries;
    for (let first = 0; first < count; first += 500) {
      const indexes = Array.from({ length: Math.min(500, count - first) }, (_, j) => first + j);
      await Promise.all(
        indexes.map((i) =>
          store.create({
            id: `inquiry-${String(i).padStart(6, '0')}`,
            createdAt: 1_000 + i,
            status: 'sent',
            channel: 'api',
            name: 'Ana',
            email: 'ana@example.com',
            message: 'A demo, please.',
            locale: 'es',
            topic: null,
            consent: null,
            clientId: null,
            remoteIp: '192.0.2.1',
            idempotencyKey: null,
            fingerprint: 'f'.repeat(64),
            contentHash: 'c'.repeat(64),
            spamReasons: [],
            ...shape(i),
          }),
        ),
      );
    }
  } finally {
    await engine.destroy();
  }
}
