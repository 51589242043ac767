// Debian's PgBouncer in transaction mode in front of the machine's PostgreSQL, as docs/deploy.md suggests
// for many nodes: for test/storage/postgres-prepared-statements.test.ts.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PGBOUNCER = '/usr/sbin/pgbouncer';
export const hasPgBouncer = existsSync(PGBOUNCER);

export interface PgBouncer {
  /** `databaseUrl` with PgBouncer's address instead of PostgreSQL's. */
  url: string;
  close(): Promise<void>;
}

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
    socket.once('connect', () => socket.end());
  });

/**
 * PgBouncer on 127.0.0.1:`port` pooling by transaction onto `serverConnections` connections to the
 * server `databaseUrl` names (trust authentication, as the machine's PostgreSQL).
 */
export async function startPgBouncer(databaseUrl: string, port: number, serverConnections: number): Promise<PgBouncer> {
  const target = new URL(databaseUrl);
  const dir = await mkdtemp(join(tmpdir(), 'portico-pgbouncer-'));
  // PgBouncer refuses to run as root; it then runs as postgres, which must read its files.
  await chmod(dir, 0o755);
  const user = decodeURIComponent(target.username) || 'postgres';
  await writeFile(join(dir, 'users.txt'), `"${user}" ""\n`, { mode: 0o644 });
  await writeFile(
    join(dir, 'pgbouncer.ini'),
    `[databases]
* = host=${target.hostname} port=${target.port || 5432}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${dir}/users.txt
pool_mode = transaction
default_pool_size = ${serverConnections}
max_client_conn = 200
; node-postgres sends the node's statement_timeout at connection start, and PgBouncer refuses a
; startup parameter it does not know unless told to ignore it (docs/deploy.md).
ignore_startup_parameters = statement_timeout
`,
    { mode: 0o644 },
  );
  const asPostgres = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
  const child = spawn(PGBOUNCER, [...asPostgres, join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`PgBouncer did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.href,
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT');
        await once(child, 'exit');
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
