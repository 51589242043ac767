// deploy/systemd/portico.service, the unit docs/deploy.md gives operators: systemd accepts it, and the
// process it starts serves from its state directory and stops on its signal well within its stop timeout.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, inquiry } from '../support/app.js';
import { startServe } from '../support/serve-process.js';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const UNIT = await readFile(`${ROOT}deploy/systemd/portico.service`, 'utf8');
const ANALYZE = '/usr/bin/systemd-analyze';
if (!existsSync(ANALYZE)) console.warn('skipping the systemd unit check: systemd-analyze is not installed (Debian package systemd)');

/** The unit's value of `key` (its last assignment, as systemd reads it). */
const setting = (key: string): string => {
  const values = [...UNIT.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((match) => match[1]!);
  if (!values.length) throw new Error(`the unit sets no ${key}`);
  return values.at(-1)!;
};

describe('the systemd unit', () => {
  let dir: string;
  /** The unit with this checkout's paths for /opt/portico, and its environment file in `dir`. */
  let unit: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-systemd-'));
    unit = UNIT.replaceAll('/opt/portico/', ROOT).replaceAll('/etc/portico/', `${dir}/`);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.skipIf(!existsSync(ANALYZE))('is accepted by systemd-analyze verify without a warning', async () => {
    await writeFile(join(dir, 'portico.env'), '');
    await writeFile(join(dir, 'portico.service'), unit);
    const { stderr } = await run(ANALYZE, ['verify', join(dir, 'portico.service')]);
    expect(stderr).toBe('');
  });

  it('starts a process that keeps its data in its working directory and exits 0 on its kill signal in time', async () => {
    const port = await freePort();
    const state = await mkdtemp(join(dir, 'state-'));
    const settings = join(dir, 'portico.env');
    await writeFile(settings, `PORT=${port}\nHOST=127.0.0.1\nLOG_LEVEL=warn\nRATE_LIMITS=off\n`);
    expect(setting('EnvironmentFile')).toBe('/etc/portico/portico.env');
    expect(setting('WorkingDirectory')).toBe('/var/lib/portico');
    expect(setting('StateDirectory')).toBe('portico');

    // As systemd runs it: the bin itself (its first line gives node its flags), the file's variables, the state directory.
    const command = setting('ExecStart').replace('/opt/portico/', ROOT).split(' ') as [string, ...string[]];
    const env = Object.fromEntries(
      (await readFile(settings, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => line.split('=', 2) as [string, string]),
    );
    const node = await startServe(env, { port, cwd: state, command });
    try {
      const sent = await fetch(`${node.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(inquiry()) });
      expect(sent.status).toBe(200);
      expect(await readdir(join(state, 'data'))).toEqual(expect.arrayContaining(['portico.sqlite', 'outbox']));

      const stopAllowedMs = Number(setting('TimeoutStopSec')) * 1000;
      const signalled = Date.now();
      node.child.kill(setting('KillSignal') as NodeJS.Signals);
      expect((await node.exited).code).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(stopAllowedMs);
    } finally {
      node.child.kill('SIGKILL');
    }
  });
});
