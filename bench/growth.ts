// `npm run bench -- --only growth`: a node holding a year of a busy site (1M inquiries with their outbox
// copies, 1M tokens) against an empty one, in the same run, on SQLite and on PostgreSQL: the token and
// contact rates and p99, then the memory of listing and purging every inquiry, and the p99 of the
// requests served while the node's retention job runs inside it and while the purge runs beside it.
import { execFileSync } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '../src/config/config.js';
import { freshPostgresDatabase } from './distributed.js';
import { fill } from './fill.js';
import { openDatabase, type Db } from '../src/adapters/sql/database.js';
import { median, summarize, type PairContext, type Summary } from './pairs.js';
import { scenarios } from './scenarios.js';
import { startPortico } from './servers.js';
import { runCli } from './cli-run.js';
import type { Load } from './wrk.js';

/** A year of a busy site; `--quick` (CI) proves the harness on a tenth of it. */
export const growthRows = (quick: boolean) => Number(process.env.BENCH_GROWTH_ROWS ?? (quick ? 100_000 : 1_000_000));
const SCENARIOS = ['POST /oauth/token (client_credentials, Basic)', 'POST /api/contact (Bearer contact:write)'];
// The bars: rates within 15% of an empty node, p99 within 2x, purge and listing in bounded memory.
const MIN_RATE_RATIO = 0.85;
const MAX_P99_RATIO = 2;
const PURGE_LIMIT_MB = 200;
// While inquiries are deleted, the served requests' p99 in the median second stays within a quarter of
// what it was: a deletion that holds the database (or the event loop) shows well above it. The load is
// steady at a quarter of the node's token rate, as a busy site's is: at saturation, any work the node does
// beside its requests lengthens their queue whether or not it ever holds the database.
const MAX_P99_WHILE_DELETING = 1.25;
const PACED_SHARE = 0.25;
const PACED_CONNECTIONS = 50;
const DAY_MS = 86_400_000;
/** The fill spreads inquiries over 360 days: the retention job deletes the oldest month of them. */
const RETENTION_DAYS = 330;
const LIST_LIMIT_MB = 150;

/** What the pairs get (pairs.ts), less the chosen scenarios, and: */
export interface GrowthContext extends Omit<PairContext, 'chosen'> {
  /** wrk's cores, where the commands run too. */
  clientCpus: string;
  /** Inquiries, and tokens, the full node holds. */
  rows: number;
}

export interface GrowthRow {
  scenario: string;
  empty: Summary;
  full: Summary;
  /** full ÷ empty, median of the rounds. */
  rateRatio: number;
  p99Ratio: number;
}

export interface GrowthReport {
  engine: string;
  rows: number;
  fillSeconds: number;
  scenarios: GrowthRow[];
  list: { lines: number; seconds: number; peakMb: number };
  /** The node's own retention job, deleting the oldest month, and the token endpoint's p99 meanwhile. */
  retention: { deleted: number; seconds: number } & P99During;
  purge: { output: string; seconds: number; peakMb: number; outboxLeft: number } & P99During;
}

/** The token endpoint's p99 under a steady load in each second of a deletion: the worst second and the median one, and before it. */
export interface P99During {
  p99DuringMs: number;
  p99MedianDuringMs: number;
  p99BeforeMs: number;
  /** The paced load's rate while the deletion ran. */
  pacedReqPerSec: number;
}

/** A database for each node: SQLite files in their folders, or PostgreSQL databases made by `database`. */
export type Databases = (name: string, nodeDir: string) => Promise<Database>;

export async function measureGrowth(ctx: GrowthContext, engine: string, databaseFor: Databases): Promise<GrowthReport> {
  const node = async (name: string) => {
    const cwd = join(ctx.dir, `growth-${engine}-${name}`);
    await mkdir(join(cwd, 'data'), { recursive: true });
    return { cwd, database: await databaseFor(name, cwd) };
  };
  const [empty, full] = [await node('empty'), await node('full')];
  process.stderr.write(`growth on ${engine}: filling a node with ${ctx.rows} inquiries and ${ctx.rows} tokens... `);
  const filling = performance.now();
  await fill(full.database, { inquiries: ctx.rows, tokens: ctx.rows, outboxDir: join(full.cwd, 'data', 'outbox') });
  // The fill's writes reach the disk before anything is measured, not while it is.
  execFileSync('sync');
  const fillSeconds = (performance.now() - filling) / 1000;
  process.stderr.write(`${fillSeconds.toFixed(0)} s\n`);

  const start = async (name: string, at: { cwd: string; database: Database }, extra: Record<string, string> = {}) => {
    const env = { DATABASE_URL: databaseUrl(at.database), ...extra };
    // Mail by SMTP, as production does (it refuses the outbox); the fill's outbox copies are there for the purge.
    const server = await startPortico({ smtpUrl: ctx.smtpUrl, dir: ctx.dir, name: `growth-${engine}-${name}`, cpus: ctx.cpus, logLevel: ctx.logLevel, cwd: at.cwd, env });
    ctx.running.push(server);
    return { server, env, cwd: at.cwd, scenarios: scenarios(await ctx.credentials(server.url)) };
  };
  const sides = [await start('empty', empty), await start('full', full)];
  const rows: GrowthRow[] = [];
  for (const name of SCENARIOS) {
    const pair = sides.map((side) => ({ server: side.server, scenario: side.scenarios.find((s) => s.name === name)! }));
    process.stderr.write(`${name}, ${engine}, full ÷ empty: `);
    for (const side of pair) await ctx.load(side.server, side.scenario, 50, ctx.warmupSeconds || 1);
    const rounds: Load[][] = [];
    for (let round = 0; round < ctx.rounds; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      const loads: Load[] = [];
      for (const i of order) loads[i] = await ctx.load(pair[i]!.server, pair[i]!.scenario, 50, ctx.seconds);
      rounds.push(loads);
      process.stderr.write(`${(loads[1]!.reqPerSec / loads[0]!.reqPerSec).toFixed(3)} `);
    }
    process.stderr.write('\n');
    const [e, f] = [summarize(rounds.map((r) => r[0]!)), summarize(rounds.map((r) => r[1]!))];
    rows.push({ scenario: name, empty: e, full: f, rateRatio: median(rounds.map((r) => r[1]!.reqPerSec / r[0]!.reqPerSec)), p99Ratio: f.p99Ms / e.p99Ms });
  }

  let fullSide = sides[1]!;
  const cli = (args: string[]) => runCli(args, fullSide.cwd, fullSide.env, ctx.clientCpus);
  process.stderr.write(`listing every inquiry as NDJSON (${engine})... `);
  const listed = await cli(['inquiries', 'list', '--format', 'ndjson', '--limit', String(ctx.rows * 2)]);
  process.stderr.write(`${listed.lines} lines, ${listed.seconds.toFixed(1)} s, ${listed.peakMb.toFixed(0)} MB\n`);

  // The token endpoint writes a row a request: the deletions, in the same database, compete with it.
  const token = fullSide.scenarios.find((s) => s.name === SCENARIOS[0])!;
  const pacedRate = PACED_SHARE * rows[0]!.full.reqPerSec;
  const pauseMs = (PACED_CONNECTIONS / pacedRate) * 1000;
  const paced = (seconds: number) => ctx.load(fullSide.server, token, PACED_CONNECTIONS, seconds, pauseMs);
  const slices = async (count: number) => {
    const loads: Load[] = [];
    for (let i = 0; i < count; i++) loads.push(await paced(1));
    return loads;
  };
  await paced(1);
  const beforeSlices = await slices(5);
  const before = median(beforeSlices.map((l) => l.p99Ms));
  process.stderr.write(`token load paced at ${median(beforeSlices.map((l) => l.reqPerSec)).toFixed(0)}/s: p99 ${before.toFixed(1)} ms\n`);
  const p99While = async (task: Promise<unknown>) => {
    let done = false;
    void task.finally(() => (done = true)).catch(() => {});
    const during: Load[] = [];
    while (!done) during.push(await paced(1));
    return { p99DuringMs: Math.max(...during.map((l) => l.p99Ms)), p99MedianDuringMs: median(during.map((l) => l.p99Ms)), p99BeforeMs: before, pacedReqPerSec: median(during.map((l) => l.reqPerSec)) };
  };

  // The retention job inside the serving node: restarted with INQUIRY_RETENTION, it deletes the oldest month at once.
  process.stderr.write(`retention in the node (${engine}) under a steady token load... `);
  await fullSide.server.close();
  ctx.running.splice(ctx.running.indexOf(fullSide.server), 1);
  const cutoff = Date.now() - RETENTION_DAYS * DAY_MS;
  const deleted = await withDatabase(full.database, async (db) => {
    // The node's first process claimed the job for half an hour at its start (with nothing to delete then).
    await db.deleteFrom('portico_job_leases').execute();
    return olderThan(db, cutoff);
  });
  const retentionStarted = performance.now();
  fullSide = { ...(await start('full', full, { INQUIRY_RETENTION: `${RETENTION_DAYS}d` })), scenarios: fullSide.scenarios };
  // Done once none is left, by a poll a second.
  const emptied = withDatabase(full.database, async (db) => {
    while ((await olderThan(db, cutoff)) > 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
  });
  const retention = { deleted, ...(await p99While(emptied)), seconds: (performance.now() - retentionStarted) / 1000 };
  process.stderr.write(
    `${retention.deleted} deleted in ${retention.seconds.toFixed(1)} s, token p99 ${retention.p99MedianDuringMs.toFixed(1)} ms in the median second, ${retention.p99DuringMs.toFixed(1)} in the worst (${before.toFixed(1)} before)\n`,
  );

  process.stderr.write(`purging every inquiry (${engine}) under a steady token load... `);
  const purging = cli(['inquiries', 'purge', '--older-than', '0']);
  const during = await p99While(purging);
  const purged = await purging;
  const outboxLeft = (await readdir(join(fullSide.cwd, 'data', 'outbox'), { recursive: true }).catch(() => [])).filter((name) => name.endsWith('.eml')).length;
  process.stderr.write(
    `${purged.seconds.toFixed(1)} s, ${purged.peakMb.toFixed(0)} MB, token p99 ${during.p99MedianDuringMs.toFixed(1)} ms in the median second, ${during.p99DuringMs.toFixed(1)} in the worst (${before.toFixed(1)} before), ${outboxLeft} outbox files left\n`,
  );
  return {
    engine,
    rows: ctx.rows,
    fillSeconds,
    scenarios: rows,
    list: { lines: listed.lines, seconds: listed.seconds, peakMb: listed.peakMb },
    retention,
    purge: { output: purged.output.trim(), seconds: purged.seconds, peakMb: purged.peakMb, outboxLeft, ...during },
  };
}

async function withDatabase<T>(database: Database, run: (db: Db) => Promise<T>): Promise<T> {
  const engine = openDatabase(database);
  try {
    return await run(engine.db);
  } finally {
    await engine.destroy();
  }
}

const olderThan = async (db: Db, cutoff: number) =>
  Number(
    (
      await db
        .selectFrom('inquiries')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('created_at', '<', cutoff)
        .executeTakeFirstOrThrow()
    ).n,
  );

const databaseUrl = (database: Database) => (database.engine === 'sqlite' ? `sqlite:${database.path}` : database.url);

/** The misses against the bars, one line each. */
export function growthMisses(report: GrowthReport): string[] {
  const at = `growth (${report.engine}, ${report.rows} rows)`;
  return [
    ...report.scenarios.flatMap((row) => [
      ...(row.rateRatio < MIN_RATE_RATIO ? [`${at} ${row.scenario}: full ÷ empty rate ${row.rateRatio.toFixed(3)} < ${MIN_RATE_RATIO}`] : []),
      ...(row.p99Ratio > MAX_P99_RATIO ? [`${at} ${row.scenario}: full ÷ empty p99 ${row.p99Ratio.toFixed(2)} > ${MAX_P99_RATIO}`] : []),
    ]),
    ...[['retention in the node', report.retention] as const, ['purge', report.purge] as const].flatMap(([what, during]) =>
      during.p99MedianDuringMs > MAX_P99_WHILE_DELETING * during.p99BeforeMs
        ? [`${at}: token p99 in the median second of the ${what} ${during.p99MedianDuringMs.toFixed(1)} ms > ${MAX_P99_WHILE_DELETING} x ${during.p99BeforeMs.toFixed(1)} before`]
        : [],
    ),
    ...(report.purge.peakMb >= PURGE_LIMIT_MB ? [`${at}: purge peaked at ${report.purge.peakMb.toFixed(0)} MB >= ${PURGE_LIMIT_MB}`] : []),
    ...(report.purge.outboxLeft ? [`${at}: purge left ${report.purge.outboxLeft} outbox files`] : []),
    ...(report.list.peakMb >= LIST_LIMIT_MB ? [`${at}: listing peaked at ${report.list.peakMb.toFixed(0)} MB >= ${LIST_LIMIT_MB}`] : []),
  ];
}

export function printGrowth(report: GrowthReport): void {
  const { engine, rows, fillSeconds, list, retention, purge } = report;
  process.stdout.write(
    `\nGrowth on ${engine}: a node holding ${rows} inquiries (with their outbox copies) and ${rows} tokens against an empty one (filled in ${fillSeconds.toFixed(0)} s), 50 connections:\n\n`,
  );
  process.stdout.write('| scenario | empty req/s | full req/s | rate full ÷ empty | empty p99 ms | full p99 ms | p99 full ÷ empty |\n|---|---|---|---|---|---|---|\n');
  for (const r of report.scenarios) {
    process.stdout.write(
      `| ${r.scenario} | ${r.empty.reqPerSec.toFixed(0)} | ${r.full.reqPerSec.toFixed(0)} | ${r.rateRatio.toFixed(3)} (>= ${MIN_RATE_RATIO}) | ${r.empty.p99Ms.toFixed(1)} | ${r.full.p99Ms.toFixed(1)} | ${r.p99Ratio.toFixed(2)} (<= ${MAX_P99_RATIO}) |\n`,
    );
  }
  process.stdout.write(`\ninquiries list --format ndjson: ${list.lines} lines in ${list.seconds.toFixed(1)} s, peak RSS ${list.peakMb.toFixed(0)} MB (bar: < ${LIST_LIMIT_MB})\n`);
  process.stdout.write(
    `the retention job in the node (INQUIRY_RETENTION=${RETENTION_DAYS}d): ${retention.deleted} inquiries in ${retention.seconds.toFixed(1)} s; token p99 meanwhile (steady load, ${retention.pacedReqPerSec.toFixed(0)}/s) ${retention.p99MedianDuringMs.toFixed(1)} ms in the median second (bar: <= ${MAX_P99_WHILE_DELETING} x ${retention.p99BeforeMs.toFixed(1)} before), ${retention.p99DuringMs.toFixed(1)} ms in the worst\n`,
  );
  process.stdout.write(
    `inquiries purge --older-than 0: "${purge.output}" in ${purge.seconds.toFixed(1)} s, peak RSS ${purge.peakMb.toFixed(0)} MB (bar: < ${PURGE_LIMIT_MB}), ${purge.outboxLeft} outbox files left; token p99 while it ran (steady load, ${purge.pacedReqPerSec.toFixed(0)}/s) ${purge.p99MedianDuringMs.toFixed(1)} ms in the median second (bar: <= ${MAX_P99_WHILE_DELETING} x ${purge.p99BeforeMs.toFixed(1)} before), ${purge.p99DuringMs.toFixed(1)} ms in the worst\n`,
  );
}

export const ENGINES = ['sqlite', 'postgres'] as const;
export type Engine = (typeof ENGINES)[number];

/** The growth scenario on each engine asked for (PostgreSQL when it answers): the reports and their misses. */
export async function growthOnEngines(ctx: GrowthContext, engines: readonly Engine[]): Promise<{ reports: GrowthReport[]; missed: string[]; skipped: string[] }> {
  const reports: GrowthReport[] = [];
  const skipped: string[] = [];
  const dropped: (() => Promise<void>)[] = [];
  // The servers stop with the others; their databases after them.
  ctx.running.unshift({ url: '', pid: 0, close: async () => void (await Promise.all(dropped.map((drop) => drop()))) });
  if (engines.includes('sqlite')) reports.push(await measureGrowth(ctx, 'sqlite', async (_, cwd) => ({ engine: 'sqlite', path: join(cwd, 'data', 'portico.sqlite') })));
  if (engines.includes('postgres')) {
    try {
      reports.push(
        await measureGrowth(ctx, 'postgres', async (name) => {
          const database = await freshPostgresDatabase(`growth_${name}`);
          dropped.push(database.drop);
          return { engine: 'postgres', url: database.url };
        }),
      );
    } catch (error) {
      if (dropped.length) throw error;
      skipped.push(`growth on PostgreSQL: not measured (${(error as Error).message})`);
    }
  }
  return { reports, missed: reports.flatMap(growthMisses), skipped };
}
