// `portico inquiries purge --older-than DAYS` deletes old inquiries and prints how many; it needs a valid DAYS.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { CLI, ROOT, lines, seedInquiries, storeInquiries, workspace, type Workspace } from './cli-harness.js';

/** The nice value of each thread of a running process (Linux's /proc: field 19 of each thread's stat). */
function niceValues(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((thread) => {
    const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('portico inquiries purge', () => {
  let smtp: TestSmtpServer;
  let space: Workspace;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  beforeEach(async () => {
    space = await workspace({ SMTP_URL: smtp.url });
    await seedInquiries(space, smtp);
  });
  afterEach(() => space.remove());
  afterAll(() => smtp.close());

  it('deletes every inquiry with --older-than 0 and prints the count', async () => {
    const { code, stdout, stderr } = await space.cli('inquiries', 'purge', '--older-than', '0');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toBe('purged 3 inquiries older than 0 days, with their outbox copies\n');
    expect((await space.cli('inquiries', 'list')).stdout).toBe('no inquiries\n');
  });

  it.runIf(process.platform === 'linux')('runs at the lowest CPU priority, every thread of it, so that a node serving beside it keeps its CPU', async () => {
    // Enough inquiries for several batches: time to read the command's threads while it deletes.
    await storeInquiries(space, 3_000);

    const purge = spawn(process.execPath, [join(ROOT, CLI), 'inquiries', 'purge', '--older-than', '0'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...space.env }, stdio: 'ignore' });
    const exited = new Promise((resolve) => purge.once('exit', resolve));
    let running = true;
    void exited.then(() => (running = false));
    const seen: number[][] = [];
    while (running) {
      try {
        seen.push(niceValues(purge.pid!));
      } catch {
        // It has just exited.
      }
      await pause(2);
    }
    expect(await exited).toBe(0);
    expect(seen.some((values) => values.length > 1 && values.every((nice) => nice === 19))).toBe(true);
    expect((await space.cli('inquiries', 'list')).stdout).toBe('no inquiries\n');
  });

  it('keeps inquiries younger than DAYS and prints 0', async () => {
    const { code, stdout } = await space.cli('inquiries', 'purge', '--older-than', '30');
    expect(code).toBe(0);
    expect(stdout).toBe('purged 0 inquiries older than 30 days, with their outbox copies\n');
    expect(lines((await space.cli('inquiries', 'list', '--json')).stdout)).toHaveLength(3);
  });

  it('exits 1 with its usage and deletes nothing without --older-than', async () => {
    const { code, stdout, stderr } = await space.cli('inquiries', 'purge');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(lines(stderr)).toEqual(['portico: usage: portico inquiries purge --older-than DAYS [--dry-run]']);
    expect(lines((await space.cli('inquiries', 'list', '--json')).stdout)).toHaveLength(3);
  });

  it.each(['abc', '-1', '1.5', ''])('exits 1 and deletes nothing when --older-than is "%s"', async (days) => {
    const { code, stdout, stderr } = await space.cli('inquiries', 'purge', `--older-than=${days}`);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(lines(stderr)).toEqual([`portico: --older-than must be an integer >= 0 (got "${days}")`]);
    expect(lines((await space.cli('inquiries', 'list', '--json')).stdout)).toHaveLength(3);
  });

  it('exits 1 and deletes nothing when --older-than is more than ten years', async () => {
    const { code, stderr } = await space.cli('inquiries', 'purge', '--older-than', '99999999999');
    expect(code).toBe(1);
    expect(lines(stderr)).toEqual(['portico: --older-than must be at most 3650 days (got "99999999999")']);
    expect(lines((await space.cli('inquiries', 'list', '--json')).stdout)).toHaveLength(3);
  });
});
