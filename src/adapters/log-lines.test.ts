import { execFile } from 'node:child_process';
import { openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { logLines } from './log-lines.js';

/** A file for the lines of one test; its destination closes it, and the file goes after the test. */
async function logFile(): Promise<{ fd: number; text: () => Promise<string> }> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-log-lines-'));
  const path = join(dir, 'out.log');
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return { fd: openSync(path, 'a'), text: () => readFile(path, 'utf8') };
}

/** Lines to the file, ended after the test: a destination left open would go on writing to its descriptor once the number is another file's. */
function linesTo(fd: number) {
  const lines = logLines(fd);
  onTestFinished(() => lines.end());
  return lines;
}

const line = (i: number) => `{"n":${i},"msg":"Überweisung für Zoë ✓ ${'x'.repeat(i % 300)}"}\n`;

describe('log lines', () => {
  it('are written whole and in order, whatever characters they hold and however long the burst', async () => {
    const file = await logFile();
    const lines = linesTo(file.fd);
    const expected: string[] = [];
    // Far more than one write carries, queued while the first writes are in flight.
    for (let i = 0; i < 20_000; i++) {
      expected.push(line(i));
      lines.write(line(i));
    }
    await new Promise<void>((resolve, reject) => lines.flush((error) => (error ? reject(error) : resolve())));
    expect(await file.text()).toBe(expected.join(''));
  });

  it('wait for a batch, and are all written by a synchronous flush, as pino does when the process exits', async () => {
    const file = await logFile();
    const lines = linesTo(file.fd);
    lines.write(line(1));
    lines.write(line(2));
    expect(await file.text()).toBe('');
    lines.flushSync();
    expect(await file.text()).toBe(line(1) + line(2));
  });

  it('are on stdout when a process logging through them crashes before the end of the turn that logged them', async () => {
    const program = `
      import { pino } from 'pino';
      import { logLines } from ${JSON.stringify(new URL('../../dist/adapters/log-lines.js', import.meta.url).href)};
      const logger = pino({}, logLines());
      setTimeout(() => {
        for (let i = 0; i < 1000; i++) logger.info({ i }, 'before the crash');
        throw new Error('boom');
      });`;
    const run = promisify(execFile)(process.execPath, ['--input-type=module', '-e', program], { cwd: join(import.meta.dirname, '..', '..') });
    const failed = (await run.catch((error: { code: number; stdout: string }) => error)) as { code: number; stdout: string };
    expect(failed.code).toBe(1);
    const numbers = failed.stdout
      .trim()
      .split('\n')
      .map((text) => (JSON.parse(text) as { i: number }).i);
    expect(numbers).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });
});
