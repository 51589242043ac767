// Two Portico nodes that differ in one setting, driven alternately by wrk on the same scenarios in the
// same run: PostgreSQL + Redis against SQLite (with targets), and metrics on against off.
import { distributedStores, UNREACHED_LIMITS } from './distributed.js';
import { scenarios, type Credentials, type Scenario } from './scenarios.js';
import { freePort, startPortico, type Running } from './servers.js';
import type { Load } from './wrk.js';

export interface Summary {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export const summarize = (loads: Load[]): Summary => ({
  reqPerSec: median(loads.map((l) => l.reqPerSec)),
  p50Ms: median(loads.map((l) => l.p50Ms)),
  p99Ms: median(loads.map((l) => l.p99Ms)),
});

export interface PairRow {
  scenario: string;
  connections: number;
  base: Summary;
  other: Summary;
  /** other ÷ base, median of the rounds. */
  ratio: number;
  /** The least `ratio` may be, where the comparison has a target. */
  target?: number;
}

export interface PairComparison {
  title: string;
  base: string;
  other: string;
  rows: PairRow[] | string;
}

export interface PairContext {
  chosen: Scenario[];
  dir: string;
  smtpUrl: string;
  cpus: string;
  /** LOG_LEVEL of every Portico node (`--log-level`). */
  logLevel: string;
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  running: Running[];
  credentials: (baseUrl: string) => Promise<Credentials>;
  /** wrk against `server`; with `pauseMs`, each connection pauses that long before each request. */
  load: (server: Running, scenario: Scenario, connections: number, seconds: number, pauseMs?: number) => Promise<Load>;
}

async function comparePair(ctx: PairContext, names: string[], label: string, baseEnv: Record<string, string>, otherEnv: Record<string, string>): Promise<PairRow[]> {
  const start = async (name: string, env: Record<string, string>) => {
    const server = await startPortico({ smtpUrl: ctx.smtpUrl, dir: ctx.dir, name, cpus: ctx.cpus, logLevel: ctx.logLevel, env });
    ctx.running.push(server);
    // Each server checks its own tokens: the scenarios are built with each one's credentials.
    return { server, scenarios: scenarios(await ctx.credentials(server.url)) };
  };
  const base = await start(`${label}-base`, baseEnv);
  const other = await start(`${label}-other`, otherEnv);
  const rows: PairRow[] = [];
  for (const name of names) {
    const sides = [base, other].map(({ server, scenarios }) => ({ server, scenario: scenarios.find((s) => s.name === name)! }));
    process.stderr.write(`${name}, ${label}, 50 connection(s): `);
    if (ctx.warmupSeconds) for (const side of sides) await ctx.load(side.server, side.scenario, 50, ctx.warmupSeconds);
    const rounds: { base: Load; other: Load }[] = [];
    for (let round = 0; round < ctx.rounds; round++) {
      // Alternate who goes first, so a slow drift of the machine does not favour one side.
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      const loads: Load[] = [];
      for (const i of order) loads[i] = await ctx.load(sides[i]!.server, sides[i]!.scenario, 50, ctx.seconds);
      rounds.push({ base: loads[0]!, other: loads[1]! });
      process.stderr.write(`${(loads[1]!.reqPerSec / loads[0]!.reqPerSec).toFixed(3)} `);
    }
    process.stderr.write('\n');
    rows.push({
      scenario: name,
      connections: 50,
      base: summarize(rounds.map((r) => r.base)),
      other: summarize(rounds.map((r) => r.other)),
      ratio: median(rounds.map((r) => r.other.reqPerSec / r.base.reqPerSec)),
    });
  }
  return rows;
}

// The token endpoint and both ways of sending an inquiry on PostgreSQL + Redis, as ratios to the SQLite
// node, and the least each ratio may be.
const DISTRIBUTED_TARGETS: Readonly<Record<string, number>> = {
  'POST /oauth/token (client_credentials, Basic)': 0.6,
  'POST /mcp tools/call contact_service (Bearer)': 0.45,
  'POST /api/contact (Bearer contact:write)': 0.45,
};

export async function compareDistributed(ctx: PairContext): Promise<PairComparison> {
  const comparison = { title: 'PostgreSQL + Redis (limits counted in Redis) vs SQLite (limits in memory), both with limits on and never reached', base: 'sqlite', other: 'postgres+redis' };
  const names = ctx.chosen.map((s) => s.name).filter((name) => Object.hasOwn(DISTRIBUTED_TARGETS, name));
  if (!names.length) return { ...comparison, rows: 'not chosen (--only)' };
  const stores = await distributedStores();
  if (typeof stores === 'string') return { ...comparison, rows: stores };
  // The servers are stopped with the others (in reverse order); the database goes after them all.
  ctx.running.unshift({ url: '', pid: 0, close: () => stores.close() });
  const rows = await comparePair(ctx, names, 'postgres-redis', { RATE_LIMITS: UNREACHED_LIMITS }, stores.env);
  return { ...comparison, rows: rows.map((row) => ({ ...row, target: DISTRIBUTED_TARGETS[row.scenario] })) };
}

// The cheapest path shows a per-request cost most; the token and the contact tool are the busiest.
const METRICS_SCENARIOS = ['GET /.well-known/oauth-authorization-server', 'POST /oauth/token (client_credentials, Basic)', 'POST /mcp tools/call contact_service (Bearer)'];

export async function compareMetrics(ctx: PairContext): Promise<PairComparison> {
  const comparison = { title: 'METRICS_PORT set (every request counted) vs unset', base: 'metrics off', other: 'metrics on' };
  const names = ctx.chosen.map((s) => s.name).filter((name) => METRICS_SCENARIOS.includes(name));
  if (!names.length) return { ...comparison, rows: 'not chosen (--only)' };
  return { ...comparison, rows: await comparePair(ctx, names, 'metrics', {}, { METRICS_PORT: String(await freePort()) }) };
}

/** The rows below their target, as the bench's MISSED lines say them. */
export function pairMisses(comparison: PairComparison): string[] {
  if (typeof comparison.rows === 'string') return [];
  return comparison.rows.filter((r) => r.target !== undefined && r.ratio < r.target).map((r) => `${r.scenario}, ${comparison.other} ÷ ${comparison.base}: ${r.ratio.toFixed(3)} < ${r.target}`);
}

export function printPairs(comparison: PairComparison): void {
  const { title, base, other, rows } = comparison;
  if (typeof rows === 'string') {
    process.stdout.write(`${title}: not measured (${rows})\n`);
    return;
  }
  process.stdout.write(`\n${title}, 50 connections:\n\n`);
  const targeted = rows.some((r) => r.target !== undefined);
  process.stdout.write(`| scenario | ${base} req/s | ${other} req/s | ratio |${targeted ? ' target |' : ''} ${other} ms p50 / p99 |\n|---|---|---|---|${targeted ? '---|' : ''}---|\n`);
  for (const r of rows) {
    const target = !targeted ? '' : r.target === undefined ? ' |' : ` >= ${r.target.toFixed(2)}${r.ratio >= r.target ? '' : ' MISSED'} |`;
    process.stdout.write(
      `| ${r.scenario} | ${r.base.reqPerSec.toFixed(0)} | ${r.other.reqPerSec.toFixed(0)} | ${r.ratio.toFixed(3)} |${target} ${r.other.p50Ms.toFixed(2)} / ${r.other.p99Ms.toFixed(2)} |\n`,
    );
  }
  process.stdout.write('\n');
}
