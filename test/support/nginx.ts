// Debian's nginx in front of Portico nodes, with the proxy settings docs/deploy.md gives
// (deploy/nginx/portico-proxy.conf): for test/cluster/nginx.test.ts and the bench's scale-out scenario.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NGINX = '/usr/sbin/nginx';
export const hasNginx = existsSync(NGINX);
const PROXY_CONF = fileURLToPath(new URL('../../deploy/nginx/portico-proxy.conf', import.meta.url));

export interface Nginx {
  url: string;
  pid: number;
  /** Its access log, `$request_id $request_uri` a line, when asked for. */
  accessLog: string;
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
  await writeFile(
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
  upstream portico { ${upstreams.map((host) => `server ${host};`).join(' ')} keepalive 32; }
  server {
    listen 127.0.0.1:${port};
    limit_conn portico_clients ${options.requestsPerClient ?? 32};
    include ${PROXY_CONF};
  }
}
`,
  );
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
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGQUIT');
      await once(child, 'exit');
    },
  };
}
