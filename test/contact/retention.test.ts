// INQUIRY_RETENTION and SPAM_RETENTION: `portico serve`'s retention job deletes what is past its
// retention, with the outbox copies of the e-mails, as soon as it starts and every hour after.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/adapters/sql/database.js';
import { migrateToLatest } from '../../src/adapters/sql/migration-runner.js';
import type { NewInquiry } from '../../src/ports/inquiry-store.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

const DAY = 86_400_000;
const dirs: string[] = [];
let server: ServeProcess | undefined;

afterEach(async () => {
  server?.child.kill('SIGKILL');
  server = undefined;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const stored = (id: string, daysAgo: number, status: NewInquiry['status']): NewInquiry => ({
  id,
  createdAt: Date.now() - daysAgo * DAY,
  status,
  channel: 'web',
  name: 'Ana García',
  email: `${id}@example.com`,
  message: 'We manage 40 buildings.',
  locale: 'es',
  topic: null,
  consent: null,
  clientId: null,
  remoteIp: '192.0.2.1',
  idempotencyKey: null,
  fingerprint: 'f'.repeat(64),
  contentHash: 'c'.repeat(64),
  spamReasons: [],
});

/** A data folder as a node leaves it: these inquiries in data/portico.sqlite, each with its outbox copy. */
async function dataFolder(inquiries: NewInquiry[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-retention-'));
  dirs.push(dir);
  await mkdir(join(dir, 'data', 'outbox'), { recursive: true });
  const engine = openDatabase({ engine: 'sqlite', path: join(dir, 'data', 'portico.sqlite') });
  await migrateToLatest(engine);
  const store = engine.inquiries;
  for (const inquiry of inquiries) {
    await store.create(inquiry);
    await writeFile(join(dir, 'data', 'outbox', `${inquiry.id}.eml`), 'Subject: an inquiry\r\n\r\n...');
  }
  await engine.destroy();
  return dir;
}

async function remaining(folder: string): Promise<{ rows: string[]; files: string[] }> {
  const engine = openDatabase({ engine: 'sqlite', path: join(folder, 'data', 'portico.sqlite') });
  try {
    const rows = (await engine.inquiries.list({ limit: 100 })).map((i) => i.id).sort();
    return { rows, files: (await readdir(join(folder, 'data', 'outbox'))).sort() };
  } finally {
    await engine.destroy();
  }
}

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the retention job', () => {
  it('deletes inquiries older than a year and spam older than 30 days, with their outbox copies, by default', async () => {
    const folder = await dataFolder([
      stored('old-sent', 400, 'sent'),
      stored('young-sent', 300, 'sent'),
      stored('old-spam', 31, 'spam'),
      stored('young-spam', 29, 'spam'),
      stored('old-failed', 366, 'failed'),
    ]);
    server = await startServe({ DATABASE_URL: 'sqlite:./data/portico.sqlite', LOG_LEVEL: 'info' }, { cwd: folder });
    const left = await until(
      () => remaining(folder),
      (r) => r.rows.length === 2,
    );
    expect(left).toEqual({ rows: ['young-sent', 'young-spam'], files: ['young-sent.eml', 'young-spam.eml'] });
    await until(
      async () => server!.output(),
      (output) => output.includes('retention: deleted'),
    );
    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes('retention: deleted'))!;
    expect(JSON.parse(line)).toMatchObject({ spam: 1, inquiries: 2 });
    expect(line).not.toContain('@example.com');
  });

  it('follows INQUIRY_RETENTION and SPAM_RETENTION, and keeps everything, saying so at start, when they are off', async () => {
    const folder = await dataFolder([stored('a', 40, 'sent'), stored('b', 10, 'spam'), stored('c', 3, 'sent')]);
    server = await startServe({ DATABASE_URL: 'sqlite:./data/portico.sqlite', INQUIRY_RETENTION: '30d', SPAM_RETENTION: '7d', LOG_LEVEL: 'info' }, { cwd: folder });
    expect(
      (
        await until(
          () => remaining(folder),
          (r) => r.rows.length === 1,
        )
      ).rows,
    ).toEqual(['c']);
    server.child.kill('SIGKILL');

    const kept = await dataFolder([stored('old', 4000, 'sent'), stored('spam', 400, 'spam')]);
    server = await startServe({ DATABASE_URL: 'sqlite:./data/portico.sqlite', INQUIRY_RETENTION: 'off', SPAM_RETENTION: 'off', LOG_LEVEL: 'info' }, { cwd: kept });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await remaining(kept)).rows).toEqual(['old', 'spam']);
    await vi.waitFor(() => expect(server!.output()).toContain('INQUIRY_RETENTION=off: inquiries are kept until deleted by hand'), { timeout: 3_000 });
    expect(server.output()).toContain('SPAM_RETENTION=off: spam is kept until deleted by hand');
  });
});
