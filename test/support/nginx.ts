// Debian's nginx in front of Portico nodes, with the proxy settings docs/deploy.md gives
// (deploy/nginx/portico-proxy.conf): for test/cluster/nginx.test.ts and the bench's scale-out scenario.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './app.js';
import { deleteKeys, MACHINE_REDIS } from './redis.js';
import { startServe, type ServeProcess } from './serve-process.js';

export const NGINX = '/usr/sbin/nginx';
export const hasNginx = existsSync(NGINX);
const PROXY_CONF = fileURLToPath(new URL('../../deploy/nginx/portico-proxy.conf', import.meta.url));

export interface Nginx {
  url: string;
  pid: number;
  /** Its access log, `$request_id $request_uri` a line, when asked for. */
  accessLog: string;
  /**
   * Proxies to `upstreams` from now on, as an operator's `nginx -s reload` does: the workers that had the
   * old list finish their requests under way and close their connections, the new ones take the rest.
   */
  route(upstreams: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * nginx on 127.0.0.1:`port`, one worker, proxying to `upstreams` (host:port), in a new folder under `parent`.
 * `requestsPerClient`: the server block's `limit_conn`, 32 as docs/deploy.md gives it.
 */
export async function startNginx(parent: string, port: number, upstreams: readonly string[], options: { accessLog?: boolean; requestsPerClient?: number } = {}): Promise<Nginx> {
  const dir = await mkdtemp(join(parent, 'nginx-'));
  // nginx's workers run as nobody: they need to enter the folders and write their temp files.
  await chmod(parent, 0o755);
  await chmod(dir, 0o755);
  for (const temp of ['body', 'proxy']) {
    await mkdir(join(dir, temp));
    await chmod(join(dir, temp), 0o777);
  }
  const accessLog = join(dir, 'access.log');
  const configure = (hosts: readonly string[]) =>
    writeFile(
      join(dir, 'nginx.conf'),
      `worker_processes 1;
error_log ${dir}/error.log warn;
pid ${dir}/nginx.pid;
events { worker_connections 1024; }
http {
  log_format ids '$request_id $request_uri';
  access_log ${options.accessLog ? `${accessLog} ids` : 'off'};
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  limit_conn_zone $binary_remote_addr zone=portico_clients:10m;
  upstream portico { ${hosts.map((host) => `server ${host};`).join(' ')} keepalive 32; }
  server {
    listen 127.0.0.1:${port};
    limit_conn portico_clients ${options.requestsPerClient ?? 32};
    include ${PROXY_CONF};
  }
}
`,
    );
  await configure(upstreams);
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (
    (await fetch(`${url}/healthz`).then(
      (r) => r.status,
      () => 0,
    )) !== 200
  ) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nginx did not start: ${errors}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    pid: child.pid!,
    accessLog,
    async route(hosts) {
      await configure(hosts);
      child.kill('SIGHUP');
      // nginx starts the new workers at once; the old ones end once their requests are answered.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGQUIT');
      await once(child, 'exit');
    },
  };
}

export interface Cluster {
  /** nginx's address: every node's PUBLIC_URL. */
  proxy: string;
  nodes: ServeProcess[];
  nginx: Nginx;
  close(): Promise<void>;
}

/**
 * Two `portico serve` nodes on `databaseUrl` and the machine's Redis (under a key prefix of their own),
 * with TRUST_PROXY=1 as docs/deploy.md gives it, behind nginx; close() stops them and empties the prefix.
 */
export async function startCluster(databaseUrl: string, env: Record<string, string>, options: { accessLog?: boolean } = {}): Promise<Cluster> {
  const prefix = `portico-test-${randomBytes(6).toString('hex')}:`;
  const port = await freePort();
  const proxy = `http://127.0.0.1:${port}`;
  const nodeEnv = { DATABASE_URL: databaseUrl, REDIS_URL: MACHINE_REDIS, REDIS_KEY_PREFIX: prefix, PUBLIC_URL: proxy, TRUST_PROXY: '1', ...env };
  const nodes = await Promise.all([startServe(nodeEnv), startServe(nodeEnv)]);
  const dir = await mkdtemp(join(tmpdir(), 'portico-nginx-'));
  const nginx = await startNginx(
    dir,
    port,
    nodes.map((node) => new URL(node.url).host),
    options,
  );
  return {
    proxy,
    nodes,
    nginx,
    async close() {
      await nginx.close();
      for (const node of nodes) node.child.kill('SIGTERM');
      await Promise.all(nodes.map((node) => node.exited));
      await deleteKeys(prefix);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
