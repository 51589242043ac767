// Scaling out: two nodes on PostgreSQL + Redis behind nginx, with the proxy settings docs/deploy.md gives
// (deploy/nginx/portico-proxy.conf), against one of them behind the same settings, on the token endpoint
// (a PostgreSQL insert and a Redis count a request). A lock, a hot row or a hot key shared by the nodes
// shows as a ratio near 1. Informational: on this machine's 2 cores the nodes share them with nginx,
// PostgreSQL, Redis and wrk (docs/performance.md).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { distributedStores } from './distributed.js';
import { median, summarize, type PairContext, type Summary } from './pairs.js';
import { scenarios } from './scenarios.js';
import { freePort, startPortico, type Running } from './servers.js';
import type { Load } from './wrk.js';

const NGINX = '/usr/sbin/nginx';
const PROXY_CONF = join(import.meta.dirname, '..', 'deploy', 'nginx', 'portico-proxy.conf');
const SCENARIO = 'POST /oauth/token (client_credentials, Basic)';

export interface ScaleOut {
  scenario: string;
  one: Summary;
  two: Summary;
  /** two ÷ one, median of the rounds. */
  ratio: number;
}

/** The comparison, or why it was not measured. */
export async function compareScaleOut(ctx: PairContext): Promise<ScaleOut | string> {
  if (!ctx.chosen.some((s) => s.name === SCENARIO)) return 'not chosen (--only)';
  if (!existsSync(NGINX)) return `${NGINX} is missing (Debian's nginx-light)`;
  const stores = await distributedStores();
  if (typeof stores === 'string') return stores;
  ctx.running.unshift({ url: '', pid: 0, close: () => stores.close() });

  const [onePort, twoPort] = [await freePort(), await freePort()];
  // Both proxies name the same public origin: tokens are bound to it, and the nodes share them.
  const publicUrl = `http://127.0.0.1:${twoPort}`;
  const node = (name: string, cpus: string) =>
    startPortico({ smtpUrl: ctx.smtpUrl, dir: ctx.dir, name, cpus, logLevel: ctx.logLevel, env: { ...stores.env, PUBLIC_URL: publicUrl, TRUST_PROXY: '1' } });
  const nodes = [await node('scale-out-1', '0'), await node('scale-out-2', '1')];
  ctx.running.push(...nodes);
  const one = await startNginx(ctx.dir, 'one', onePort, nodes.slice(0, 1));
  const two = await startNginx(ctx.dir, 'two', twoPort, nodes);
  ctx.running.push(one, two);

  // The client is registered through the proxy; both sides ask the same nodes for the same client's tokens.
  const scenario = scenarios(await ctx.credentials(two.url)).find((s) => s.name === SCENARIO)!;
  process.stderr.write(`${SCENARIO}, two nodes ÷ one behind nginx, 50 connection(s): `);
  if (ctx.warmupSeconds) for (const side of [one, two]) await ctx.load(side, scenario, 50, ctx.warmupSeconds);
  const rounds: { one: Load; two: Load }[] = [];
  for (let round = 0; round < ctx.rounds; round++) {
    const first = round % 2 === 0 ? one : two;
    const a = await ctx.load(first, scenario, 50, ctx.seconds);
    const b = await ctx.load(first === one ? two : one, scenario, 50, ctx.seconds);
    const [loadOne, loadTwo] = first === one ? [a, b] : [b, a];
    rounds.push({ one: loadOne, two: loadTwo });
    process.stderr.write(`${(loadTwo.reqPerSec / loadOne.reqPerSec).toFixed(3)} `);
  }
  process.stderr.write('\n');
  return {
    scenario: SCENARIO,
    one: summarize(rounds.map((r) => r.one)),
    two: summarize(rounds.map((r) => r.two)),
    ratio: median(rounds.map((r) => r.two.reqPerSec / r.one.reqPerSec)),
  };
}

/** nginx with the deployment's proxy settings in front of `nodes`, one worker, logs off. */
async function startNginx(dir: string, name: string, port: number, nodes: Running[]): Promise<Running> {
  const root = join(dir, `nginx-${name}`);
  // nginx's workers run as nobody: they need to enter the folder and write their temp files.
  await mkdir(root, { recursive: true });
  await chmod(dir, 0o755);
  await chmod(root, 0o777);
  const upstream = nodes.map((n) => `server ${new URL(n.url).host};`).join(' ');
  await writeFile(
    join(root, 'nginx.conf'),
    `worker_processes 1;
error_log ${root}/error.log warn;
pid ${root}/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${root}/body;
  proxy_temp_path ${root}/proxy;
  upstream portico { ${upstream} keepalive 32; }
  server {
    listen 127.0.0.1:${port};
    include ${PROXY_CONF};
  }
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-p', root, '-c', join(root, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; (await fetch(`${url}/healthz`).then((r) => r.status, () => 0)) !== 200; i++) {
    if (child.exitCode !== null || i > 200) throw new Error(`nginx (${name}) did not start`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    url,
    pid: child.pid!,
    async close() {
      if (child.exitCode !== null) return;
      child.kill('SIGQUIT');
      await once(child, 'exit');
    },
  };
}

export function printScaleOut(result: ScaleOut | string): void {
  const title = 'Two nodes on PostgreSQL + Redis behind nginx (deploy/nginx/portico-proxy.conf) vs one, on 2 cores shared with nginx, PostgreSQL, Redis and wrk';
  if (typeof result === 'string') return void process.stdout.write(`${title}: not measured (${result})\n`);
  const ms = (s: Summary) => `${s.p50Ms.toFixed(2)} / ${s.p99Ms.toFixed(2)}`;
  process.stdout.write(`\n${title}, 50 connections:\n\n| scenario | one node req/s | two nodes req/s | two ÷ one | one ms p50 / p99 | two ms p50 / p99 |\n|---|---|---|---|---|---|\n`);
  process.stdout.write(`| ${result.scenario} | ${result.one.reqPerSec.toFixed(0)} | ${result.two.reqPerSec.toFixed(0)} | ${result.ratio.toFixed(3)} | ${ms(result.one)} | ${ms(result.two)} |\n`);
}
