// A PostgreSQL server of the test's own (initdb in a temp folder, its own port), so a test can stop
// and restart it without touching the machine's server that other suites use.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './app.js';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';

export const canRunPrivatePostgres = existsSync(`${BIN}/initdb`) && existsSync(`${BIN}/pg_ctl`);

export interface PrivatePostgres {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server for good and removes its files. */
  destroy(): Promise<void>;
}

// PostgreSQL refuses to run as root: as root, the server runs as the postgres system user.
async function asServerUser(command: string, args: string[]): Promise<void> {
  if (process.getuid?.() === 0) await run('/usr/sbin/runuser', ['-u', 'postgres', '--', command, ...args]);
  else await run(command, args);
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-pg-'));
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout), Number(group));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  await asServerUser(`${BIN}/initdb`, ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => asServerUser(`${BIN}/pg_ctl`, ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '20', 'start']);
  // Fast shutdown: sessions are ended, as in a restart for an upgrade.
  const stop = () => asServerUser(`${BIN}/pg_ctl`, ['-D', data, '-m', 'fast', '-w', 'stop']);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    async destroy() {
      await stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
