// `npm start` is what a supervisor holds: a SIGTERM to npm reaches node (the script execs it, no shell
// in between), which stops serving and exits; nothing is left listening.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../cli/cli-harness.js';
import { freePort } from '../support/app.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('npm start under a supervisor', () => {
  it('stops node when npm gets SIGTERM, and exits', { timeout: 30_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-npm-start-'));
    const port = await freePort();
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, PORT: String(port), DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const exited = once(npm, 'exit');
    const healthz = () =>
      fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
    for (let i = 0; i < 100 && (await healthz()) !== 200; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await healthz()).toBe(200);
    npm.kill('SIGTERM');
    await exited;
    // Nothing answers any more: no node process was left behind serving.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await healthz()).toBe(0);
  });

  it('runs the bin with the V8 flags of its first line, and stops on SIGTERM', { timeout: 30_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-bin-'));
    const port = await freePort();
    const bin = spawn(join(ROOT, 'dist', 'cli.js'), ['serve'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PORT: String(port), DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const exited = once(bin, 'exit');
    const healthz = () =>
      fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
    for (let i = 0; i < 100 && (await healthz()) !== 200; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    // env -S execs node in the same process: its command line carries the flags.
    const commandLine = (await readFile(`/proc/${bin.pid}/cmdline`, 'utf8')).split('\0');
    expect(commandLine.slice(0, 7)).toEqual([
      'node',
      '--heap-growing-percent=25',
      '--v8-pool-size=1',
      '--no-allocation-site-pretenuring',
      '--no-compact-code-space',
      '--max-semi-space-size=16',
      '--no-maglev',
    ]);
    bin.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
  });
});
