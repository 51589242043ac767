// `portico inquiries list` shows stored inquiries (seeded through POST /api/contact) with status, filters and JSON lines.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { CLI, lines, ROOT, seedInquiries, storeInquiries, workspace, type Seeded, type Workspace } from './cli-harness.js';

/** The table's rows as cells, keyed by the header. */
function table(stdout: string): Record<string, string>[] {
  const [header, ...rows] = lines(stdout).map((line) => line.trim().split(/ {2,}/));
  return rows.map((cells) => Object.fromEntries(header!.map((name, i) => [name, cells[i] ?? ''])));
}

describe('portico inquiries list on an empty database', () => {
  let space: Workspace;
  beforeAll(async () => {
    space = await workspace();
  });
  afterAll(() => space.remove());

  it('says no inquiries and exits 0', async () => {
    const { code, stdout, stderr } = await space.cli('inquiries', 'list');
    expect(code).toBe(0);
    expect(stdout).toBe('no inquiries\n');
    expect(stderr).toBe('');
  });

  it('prints nothing with --json', async () => {
    const { code, stdout } = await space.cli('inquiries', 'list', '--json');
    expect(code).toBe(0);
    expect(stdout).toBe('');
  });
});

describe('portico inquiries list', () => {
  let space: Workspace;
  let smtp: TestSmtpServer;
  let seeded: Seeded;
  beforeAll(async () => {
    space = await workspace();
    smtp = await startSmtpServer();
    seeded = await seedInquiries(space, smtp);
  });
  afterAll(async () => {
    await smtp.close();
    await space.remove();
  });

  it('shows every inquiry, newest first, with its status, tries, locale, channel, e-mail and name', async () => {
    const { code, stdout, stderr } = await space.cli('inquiries', 'list');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(lines(stdout)[0]).toMatch(/^ID +RECEIVED +STATUS +TOPIC +TRIES +NEXT TRY +LANG +CHANNEL +EMAIL +NAME +REASONS +LAST ERROR$/);
    expect(table(stdout)).toEqual([
      expect.objectContaining({ ID: seeded.spam, STATUS: 'spam', EMAIL: 'bot@example.com', NAME: 'Spam Bot', REASONS: 'honeypot' }),
      expect.objectContaining({ ID: seeded.failed, STATUS: 'failed', TOPIC: 'general', TRIES: '1', LANG: 'en', CHANNEL: 'web', EMAIL: 'failed@example.com', NAME: 'Failed Sender', REASONS: '-' }),
      expect.objectContaining({ ID: seeded.sent, STATUS: 'sent', TRIES: '1', LANG: 'es', CHANNEL: 'web', EMAIL: 'sent@example.com', NAME: 'Sent Sender' }),
    ]);
    for (const row of table(stdout)) expect(new Date(row.RECEIVED!).toISOString()).toBe(row.RECEIVED);
  });

  it('shows only failed inquiries with --status failed', async () => {
    const { code, stdout } = await space.cli('inquiries', 'list', '--status', 'failed');
    expect(code).toBe(0);
    expect(table(stdout).map((row) => [row.ID, row.STATUS])).toEqual([[seeded.failed, 'failed']]);
  });

  it('says no inquiries when no inquiry has the status asked for', async () => {
    const { code, stdout } = await space.cli('inquiries', 'list', '--status', 'pending');
    expect(code).toBe(0);
    expect(stdout).toBe('no inquiries\n');
  });

  it('prints one JSON object per line with --json', async () => {
    const { code, stdout } = await space.cli('inquiries', 'list', '--json');
    expect(code).toBe(0);
    const objects = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(objects).toEqual([
      expect.objectContaining({ id: seeded.spam, status: 'spam', email: 'bot@example.com' }),
      expect.objectContaining({ id: seeded.failed, status: 'failed', email: 'failed@example.com', attempts: 1, channel: 'web' }),
      expect.objectContaining({ id: seeded.sent, status: 'sent', email: 'sent@example.com', attempts: 1 }),
    ]);
    expect(objects[1].lastError).toContain('550');
  });

  it('combines --json with --status', async () => {
    const { stdout } = await space.cli('inquiries', 'list', '--json', '--status', 'sent');
    expect(lines(stdout).map((line) => JSON.parse(line).id)).toEqual([seeded.sent]);
  });

  it('shows only the newest inquiry with --limit 1', async () => {
    const { code, stdout } = await space.cli('inquiries', 'list', '--limit', '1');
    expect(code).toBe(0);
    expect(table(stdout).map((row) => row.ID)).toEqual([seeded.spam]);
  });

  it('exits 1 naming the statuses when --status is not one of them', async () => {
    const { code, stdout, stderr } = await space.cli('inquiries', 'list', '--status', 'delivered');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(lines(stderr)).toEqual(['portico: --status must be one of pending, sent, failed, spam, duplicate']);
  });

  it.each([['--limit=0'], ['--limit=abc'], ['--limit=-1'], ['--limit', '-3']])('exits 1 naming the bad value of %s %s', async (...args) => {
    const { code, stdout, stderr } = await space.cli('inquiries', 'list', ...args);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toMatch(/^portico: --limit must be an integer/);
  });
});

describe('portico inquiries list --json over many inquiries', () => {
  let space: Workspace;
  const COUNT = 1_203;
  beforeAll(async () => {
    space = await workspace();
    await storeInquiries(space, COUNT, (i) => ({ createdAt: 1_000 + Math.floor(i / 3) }));
  });
  afterAll(() => space.remove());

  it('writes every inquiry once, newest first, across pages, up to --limit', async () => {
    const all = lines((await space.cli('inquiries', 'list', '--json', '--limit', '5000')).stdout).map((line) => JSON.parse(line) as { id: string; createdAt: number });
    expect(all).toHaveLength(COUNT);
    expect(new Set(all.map((i) => i.id)).size).toBe(COUNT);
    expect(all.map((i) => i.createdAt)).toEqual([...all.map((i) => i.createdAt)].sort((a, b) => b - a));
    const some = lines((await space.cli('inquiries', 'list', '--json', '--limit', '1100')).stdout).map((line) => (JSON.parse(line) as { id: string }).id);
    expect(some).toEqual(all.slice(0, 1100).map((i) => i.id));
  });
});

describe('portico inquiries list --format', () => {
  let space: Workspace;
  beforeAll(async () => {
    space = await workspace();
    const rows = [
      { id: 'one', createdAt: 1_000, channel: 'web', name: 'García, Ana', email: 'ana@example.com', message: 'Two lines,\nand "quotes".', topic: 'demo' },
      { id: 'two', createdAt: 2_000, channel: 'web', name: '=HYPERLINK("http://evil.example")', email: 'bot@example.com', message: '+1 call me \u001b[31m' },
      { id: 'three', createdAt: 3_000, channel: 'web', name: ' @SUM(A1)', email: 'wide@example.com', message: '\uff1dHYPERLINK("http://evil.example")' },
    ] as const;
    await storeInquiries(space, rows.length, (i) => rows[i]!);
  });
  afterAll(() => space.remove());

  it('writes CSV a spreadsheet reads as the data: header, CRLF, quoting, formulas defused (behind a space or in fullwidth too), controls escaped', async () => {
    const { code, stdout } = await space.cli('inquiries', 'list', '--format', 'csv');
    expect(code).toBe(0);
    expect(stdout).toBe(
      'id,received,status,channel,name,email,locale,message,client_id,attempts,sent,last_error,spam_reasons,duplicate_of,topic\r\n' +
        `three,1970-01-01T00:00:03.000Z,sent,web,' @SUM(A1),wide@example.com,es,"'\uff1dHYPERLINK(""http://evil.example"")",,0,,,,,\r\n` +
        `two,1970-01-01T00:00:02.000Z,sent,web,"'=HYPERLINK(""http://evil.example"")",bot@example.com,es,'+1 call me \\u001b[31m,,0,,,,,\r\n` +
        'one,1970-01-01T00:00:01.000Z,sent,web,"García, Ana",ana@example.com,es,"Two lines,\nand ""quotes"".",,0,,,,,demo\r\n',
    );
  });

  it('writes one JSON array with json, and one document a line with ndjson (as --json)', async () => {
    const array = JSON.parse((await space.cli('inquiries', 'list', '--format', 'json')).stdout) as { id: string }[];
    expect(array.map((i) => i.id)).toEqual(['three', 'two', 'one']);
    const ndjson = (await space.cli('inquiries', 'list', '--format', 'ndjson')).stdout;
    expect(lines(ndjson).map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(['three', 'two', 'one']);
    expect((await space.cli('inquiries', 'list', '--json')).stdout).toBe(ndjson);
  });

  it('refuses a format it does not know, naming the ones it does', async () => {
    const { code, stderr } = await space.cli('inquiries', 'list', '--format', 'xml');
    expect(code).toBe(1);
    expect(lines(stderr)).toEqual(['portico: --format must be one of table, json, ndjson, csv (got "xml")']);
  });
});

describe('portico inquiries list --format ndjson to a reader slower than the database', () => {
  let space: Workspace;
  const COUNT = 20_000;
  const MESSAGE = 'We would like to see how residents book the shared rooms. '.repeat(65); // about 4 KB
  beforeAll(async () => {
    space = await workspace();
    await storeInquiries(space, COUNT, () => ({ message: MESSAGE }));
  });
  afterAll(() => space.remove());

  it('waits for the reader instead of holding the whole listing (some 80 MB) in memory', async () => {
    const child = spawn(process.execPath, [join(ROOT, CLI), 'inquiries', 'list', '--format', 'ndjson', '--limit', String(COUNT)], {
      env: { PATH: process.env.PATH ?? '', ...space.env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.pause();
    // The reader takes nothing until the command has stopped working: it is waiting for the pipe, or done.
    let cpu = -1;
    for (let now = await cpuTicks(child.pid!); now !== cpu; now = await cpuTicks(child.pid!)) {
      cpu = now;
      await delay(400);
    }
    const rssMb = await residentMb(child.pid!);
    let count = 0;
    for await (const _ of createInterface({ input: child.stdout })) count++;
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
    expect(count).toBe(COUNT);
    expect(rssMb).toBeLessThan(130);
  });
});

async function cpuTicks(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

async function residentMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}
