// Scaling out: two nodes on PostgreSQL + Redis behind nginx, with the proxy settings docs/deploy.md gives
// (deploy/nginx/portico-proxy.conf), against one of them behind the same settings, on the token endpoint
// (a PostgreSQL insert and a Redis count a request). A lock, a hot row or a hot key shared by the nodes
// shows as a ratio near 1. Informational: on this machine's 2 cores the nodes share them with nginx,
// PostgreSQL, Redis and wrk (docs/performance.md).
import { distributedStores } from './distributed.js';
import { median, summarize, type PairContext, type Summary } from './pairs.js';
import { scenarios } from './scenarios.js';
import { hasNginx, NGINX, startNginx } from '../test/support/nginx.js';
import { freePort, startPortico } from './servers.js';
import type { Load } from './wrk.js';

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
  if (!hasNginx) return `${NGINX} is missing (Debian's nginx-light)`;
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
  const hosts = nodes.map((n) => new URL(n.url).host);
  // wrk is one client address: the per-client limit a site would set is lifted above its 50 connections.
  const one = await startNginx(ctx.dir, onePort, hosts.slice(0, 1), { requestsPerClient: 1_000 });
  const two = await startNginx(ctx.dir, twoPort, hosts, { requestsPerClient: 1_000 });
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

export function printScaleOut(result: ScaleOut | string): void {
  const title = 'Two nodes on PostgreSQL + Redis behind nginx (deploy/nginx/portico-proxy.conf) vs one, on 2 cores shared with nginx, PostgreSQL, Redis and wrk';
  if (typeof result === 'string') return void process.stdout.write(`${title}: not measured (${result})\n`);
  const ms = (s: Summary) => `${s.p50Ms.toFixed(2)} / ${s.p99Ms.toFixed(2)}`;
  process.stdout.write(`\n${title}, 50 connections:\n\n| scenario | one node req/s | two nodes req/s | two ÷ one | one ms p50 / p99 | two ms p50 / p99 |\n|---|---|---|---|---|---|\n`);
  process.stdout.write(`| ${result.scenario} | ${result.one.reqPerSec.toFixed(0)} | ${result.two.reqPerSec.toFixed(0)} | ${result.ratio.toFixed(3)} | ${ms(result.one)} | ${ms(result.two)} |\n`);
}
