// `npm run bench [-- --quick] [-- --json FILE] [-- --only word,word] [-- --log-level silent]`; `--only growth[-sqlite|-postgres]` alone: see growth.ts;
// `--only hostile` alone: the floods of hostile.ts
// Portico side by side with a bare node:http server answering the same bytes, driven alternately by wrk,
// both servers pinned to one core and wrk to the other. Ratios of medians, never absolutes: the machines
// are shared and noisy. See docs/performance.md.
import { hostile, hostileMisses, printHostile } from './hostile.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CLIENT_KIND_TARGET, compareClientKinds, printClientKinds } from './client-kinds.js';
import { ENGINES, growthOnEngines, growthRows, printGrowth, type Engine, type GrowthContext } from './growth.js';
import { compareDistributed, compareMetrics, median, pairMisses, printPairs, summarize, type PairContext, type Summary } from './pairs.js';
import { credentials, scenarios, type Scenario } from './scenarios.js';
import { compareScaleOut, printScaleOut } from './scale-out.js';
import { cpuMs, exhaustContactLimit, memory, recordAnswer, startBare, startPortico, startSmtpSink, type Running } from './servers.js';
import { ensureWrk, wrk, type Load } from './wrk.js';
import { RUNTIME_ALLOWANCE_MB } from '../test/support/process-stats.js';

const { values: args } = parseArgs({
  // Portico logs at info by default, to a file, as operators run it.
  options: { quick: { type: 'boolean', default: false }, json: { type: 'string' }, only: { type: 'string' }, 'log-level': { type: 'string', default: 'info' } },
});
const LOG_LEVEL = args['log-level'];
if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(LOG_LEVEL)) throw new Error(`--log-level ${LOG_LEVEL}: say info, silent or another pino level`);

const QUICK = args.quick;
const ROUNDS = QUICK ? 1 : 3;
const CONNECTIONS = [50, 1];
const SECONDS: Record<number, number> = QUICK ? { 50: 1, 1: 1 } : { 50: 2, 1: 1 };
const WARMUP_SECONDS = QUICK ? 0 : 1;
// The servers share core 0; wrk and the SMTP sink run on the other cores.
const SERVER_CPUS = '0';
const CLIENT_CPUS = cpus().length > 1 ? `1-${cpus().length - 1}` : '0';
// DESIGN.md's 160 MB, set on Node 20, and what the runtime itself adds on a later one (docs/design.md, "Running").
const MEMORY_LIMIT_MB = 160 + RUNTIME_ALLOWANCE_MB;
const START_LIMIT_MS = 1500;

interface Row {
  scenario: string;
  connections: number;
  target?: number;
  mailBudget?: Scenario['mailBudget'];
  rounds: { portico: Load; bare: Load; ratio: number; cpuMsPerRequest: number }[];
  /** Median of the rounds' server CPU time per request. */
  cpuMsPerRequest: number;
  portico: Summary;
  bare: Summary;
  /** Median of the rounds' ratios of requests per second. */
  ratio: number;
  /** Portico's resident memory after its last round of this scenario. */
  rssMb: number;
}

async function main(): Promise<void> {
  ensureWrk();
  const dir = await mkdtemp(join(tmpdir(), 'portico-bench-'));
  const running: Running[] = [];
  const load = (server: Running, scenario: Scenario, connections: number, seconds: number, pauseMs?: number) =>
    wrk({ url: server.url, request: scenario, connections, seconds, expectedStatus: scenario.expectedStatus, dir, cpus: CLIENT_CPUS, pauseMs });
  // What every comparison beside the main table runs with.
  const settings = (smtpUrl: string) => ({ dir, smtpUrl, cpus: SERVER_CPUS, logLevel: LOG_LEVEL, rounds: ROUNDS, seconds: SECONDS[50]!, warmupSeconds: WARMUP_SECONDS, running, credentials, load });
  const only = args.only?.split(',').filter(Boolean);
  try {
    const growthWord = only?.find((word) => word.startsWith('growth'));
    if (growthWord) {
      if (only!.length > 1) throw new Error('--only growth runs alone: it fills its own nodes with a year of data');
      const engines = growthWord === 'growth' ? ENGINES : ENGINES.filter((engine) => growthWord === `growth-${engine}`);
      if (!engines.length) throw new Error(`--only ${growthWord}: say growth, growth-sqlite or growth-postgres`);
      const sink = await startSmtpSink(CLIENT_CPUS);
      running.push(sink);
      const ctx = { ...settings(sink.url), clientCpus: CLIENT_CPUS, rows: growthRows(QUICK) };
      return await growth(ctx, engines);
    }
    if (only?.length === 1 && only[0] === 'hostile') {
      const rows = await hostile({ dir, cpus: SERVER_CPUS, logLevel: LOG_LEVEL, running, quick: QUICK });
      printHostile(rows);
      const misses = hostileMisses(rows);
      for (const miss of misses) process.stdout.write(`${QUICK ? 'not judged (--quick)' : 'MISSED'}: ${miss}\n`);
      if (!QUICK && misses.length) process.exitCode = 1;
      return;
    }
    const sink = await startSmtpSink(CLIENT_CPUS);
    running.push(sink);
    const portico = await startPortico({ smtpUrl: sink.url, dir, name: 'main', cpus: SERVER_CPUS, logLevel: LOG_LEVEL });
    running.push(portico);
    const limited = await startPortico({ smtpUrl: sink.url, dir, name: 'limited', cpus: SERVER_CPUS, logLevel: LOG_LEVEL, env: { RATE_LIMITS: 'default' } });
    running.push(limited);
    const bare = await startBare(SERVER_CPUS);
    running.push(bare);
    const instances = { main: portico, limited };

    const chosen = scenarios(await credentials(portico.url)).filter((s) => !only?.length || only.some((word) => s.name.includes(word)));
    if (chosen.length === 0) throw new Error(`--only ${args.only} matches no scenario`);
    for (const scenario of chosen) {
      if (scenario.expectedStatus === 429) await exhaustContactLimit(limited, scenario);
      const answer = await recordAnswer(instances[scenario.instance].url, scenario);
      if (answer.status !== scenario.expectedStatus) throw new Error(`${scenario.name}: Portico answered ${answer.status}, not ${scenario.expectedStatus}: ${answer.body}`);
    }

    const rows: Row[] = [];
    for (const scenario of chosen) {
      const server = instances[scenario.instance];
      // The bare server learns this scenario's answer (recorded again: several scenarios share POST /mcp).
      await bare.teach(scenario, await recordAnswer(server.url, scenario));
      for (const connections of CONNECTIONS) {
        process.stderr.write(`${scenario.name}, ${connections} connection(s): `);
        if (WARMUP_SECONDS) for (const s of [server, bare]) await load(s, scenario, connections, WARMUP_SECONDS);
        const rounds: Row['rounds'] = [];
        for (let round = 0; round < ROUNDS; round++) {
          // Alternate who goes first, so a slow drift of the machine does not favour one side.
          const order = round % 2 === 0 ? [server, bare] : [bare, server];
          let cpuSpent = 0;
          const measured = async (s: Running) => {
            const before = s === server ? await cpuMs(server.pid) : 0;
            const result = await load(s, scenario, connections, SECONDS[connections]!);
            if (s === server) cpuSpent = (await cpuMs(server.pid)) - before;
            return result;
          };
          const [first, second] = [await measured(order[0]!), await measured(order[1]!)];
          const [p, b] = order[0] === server ? [first, second] : [second, first];
          rounds.push({ portico: p, bare: b, ratio: p.reqPerSec / b.reqPerSec, cpuMsPerRequest: cpuSpent / Math.max(p.requests, 1) });
          process.stderr.write(`${(p.reqPerSec / b.reqPerSec).toFixed(3)} `);
        }
        process.stderr.write('\n');
        rows.push({
          scenario: scenario.name,
          connections,
          ...(scenario.target === undefined ? {} : { target: scenario.target }),
          ...(scenario.mailBudget === undefined ? {} : { mailBudget: scenario.mailBudget }),
          rounds,
          cpuMsPerRequest: median(rounds.map((r) => r.cpuMsPerRequest)),
          portico: summarize(rounds.map((r) => r.portico)),
          bare: summarize(rounds.map((r) => r.bare)),
          ratio: median(rounds.map((r) => r.ratio)),
          rssMb: (await memory(server.pid)).rssMb,
        });
      }
    }

    const pairs: PairContext = { ...settings(sink.url), chosen };
    const distributed = await compareDistributed(pairs);
    const scaleOut = await compareScaleOut(pairs);
    const metrics = await compareMetrics(pairs);
    const clientKinds = only?.length ? [] : await compareClientKinds(pairs);
    const hostileRows = only?.length ? [] : await hostile({ dir, cpus: SERVER_CPUS, logLevel: LOG_LEVEL, running, quick: QUICK });
    const mail = await mailThroughput(sink.url);

    const peaks = { main: (await memory(portico.pid)).peakMb, limited: (await memory(limited.pid)).peakMb, bare: (await memory(bare.pid)).peakMb };
    const startMs = portico.startMs;
    printTable(rows, peaks, startMs);
    printPairs(distributed);
    printScaleOut(scaleOut);
    printPairs(metrics);
    printClientKinds(clientKinds);
    printHostile(hostileRows);
    process.stdout.write(
      `e-mail through the SMTP pool to the loopback sink (${mail.inFlight} in flight, CPU ${SERVER_CPUS}): ${mail.messagesPerSecond.toFixed(0)} messages/s, ${mail.cpuMicrosPerMessage.toFixed(0)} us of CPU each${mail.failed ? `, ${mail.failed} failed` : ''}\n`,
    );

    const problems = rows.flatMap((row) =>
      row.rounds.flatMap((round) =>
        (['portico', 'bare'] as const)
          .filter((side) => round[side].unexpectedStatus || round[side].socketErrors)
          .map((side) => `${row.scenario} (${row.connections}) on ${side}: ${round[side].unexpectedStatus} unexpected statuses, ${round[side].socketErrors} socket errors`),
      ),
    );
    const missed = [
      ...rows.filter((r) => r.connections === 50 && r.target !== undefined && r.ratio < r.target).map((r) => `${r.scenario}: ${r.ratio.toFixed(3)} < ${r.target}`),
      ...rows.filter((r) => r.connections === 50 && r.mailBudget).flatMap((r) => mailMisses(r)),
      ...(Math.max(peaks.main, peaks.limited) >= MEMORY_LIMIT_MB ? [`peak RSS ${Math.max(peaks.main, peaks.limited).toFixed(0)} MB >= ${MEMORY_LIMIT_MB} MB`] : []),
      ...pairMisses(distributed),
      ...clientKinds.filter((r) => r.ratio < CLIENT_KIND_TARGET).map((r) => `${r.path}, metadata document ÷ registered client: ${r.ratio.toFixed(3)} < ${CLIENT_KIND_TARGET}`),
      ...hostileMisses(hostileRows),
      ...(startMs > START_LIMIT_MS ? [`/healthz answered ${startMs.toFixed(0)} ms after start > ${START_LIMIT_MS} ms`] : []),
    ];
    for (const problem of problems) process.stderr.write(`HARNESS ${problem}: these figures are not comparable\n`);
    for (const miss of missed) process.stdout.write(`${QUICK ? 'not judged (--quick)' : 'MISSED'}: ${miss}\n`);

    if (args.json) {
      const environment = { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model, rounds: ROUNDS, seconds: SECONDS, quick: QUICK, logLevel: LOG_LEVEL };
      await writeFile(
        args.json,
        `${JSON.stringify({ at: new Date().toISOString(), environment, startMs, peakRssMb: peaks, rows, distributed, scaleOut, metrics, clientKinds, hostile: hostileRows, mail, missed }, null, 2)}\n`,
      );
      process.stdout.write(`results written to ${args.json}\n`);
    }
    if (problems.length || (!QUICK && missed.length)) process.exitCode = 1;
  } finally {
    for (const server of running.reverse()) await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** `--only growth`: a year of data against none, on each engine; exits non-zero on a missed bar. */
async function growth(ctx: GrowthContext, engines: readonly Engine[]): Promise<void> {
  const { reports, missed, skipped } = await growthOnEngines(ctx, engines);
  process.stdout.write(`\nPortico at LOG_LEVEL=${ctx.logLevel}, logging to a file\n`);
  for (const report of reports) printGrowth(report);
  for (const line of skipped) process.stdout.write(`${line}\n`);
  for (const miss of missed) process.stdout.write(`${QUICK ? 'not judged (--quick)' : 'MISSED'}: ${miss}\n`);
  if (args.json) await writeFile(args.json, `${JSON.stringify({ at: new Date().toISOString(), node: process.version, growth: reports, missed }, null, 2)}\n`);
  if (!QUICK && missed.length) process.exitCode = 1;
}

/** The row's bars, each followed by MISSED when it was. */
function targets(r: Row): string {
  const ratio = r.target === undefined ? [] : [`>= ${r.target.toFixed(2)}${r.ratio >= r.target ? '' : ' MISSED'}`];
  const mail = r.mailBudget ? [`CPU <= ${r.mailBudget.cpuMsPerRequest} ms, p99 <= ${r.mailBudget.p99Ms} ms${mailMisses(r).length ? ' MISSED' : ''}`] : [];
  return [...ratio, ...mail].join('; ');
}

/** A mail scenario over its budget: more CPU per inquiry, or a slower p99, than a person should feel. */
function mailMisses(row: Row): string[] {
  const budget = row.mailBudget!;
  return [
    ...(row.cpuMsPerRequest > budget.cpuMsPerRequest ? [`${row.scenario}: ${row.cpuMsPerRequest.toFixed(2)} ms of CPU a request > ${budget.cpuMsPerRequest}`] : []),
    ...(row.portico.p99Ms > budget.p99Ms ? [`${row.scenario}: p99 ${row.portico.p99Ms.toFixed(1)} ms > ${budget.p99Ms} ms`] : []),
  ];
}

function printTable(rows: Row[], peaks: Record<string, number>, startMs: number): void {
  const ms = (s: Summary) => `${s.p50Ms.toFixed(2)} / ${s.p99Ms.toFixed(2)}`;
  const table = [
    ['scenario', 'conns', 'portico req/s', 'bare req/s', 'ratio', 'target', 'portico ms p50 / p99', 'bare ms p50 / p99', 'CPU ms/req', 'RSS MB'],
    ...rows.map((r) => [
      r.scenario,
      String(r.connections),
      r.portico.reqPerSec.toFixed(0),
      r.bare.reqPerSec.toFixed(0),
      r.ratio.toFixed(3),
      r.connections !== 50 ? '' : targets(r),
      ms(r.portico),
      ms(r.bare),
      r.cpuMsPerRequest.toFixed(3),
      r.rssMb.toFixed(0),
    ]),
  ];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  const seconds = CONNECTIONS.map((c) => `${SECONDS[c]} s at ${c}`).join(', ');
  process.stdout.write(
    `\nwrk, median of ${ROUNDS} round(s) (${seconds} connection(s)); servers on CPU ${SERVER_CPUS}, wrk on ${CLIENT_CPUS}; Node ${process.version}, ${cpus().length} CPUs; Portico at LOG_LEVEL=${LOG_LEVEL}, logging to a file\n\n`,
  );
  process.stdout.write(`${[line(table[0]!), line(widths.map((w) => '-'.repeat(w))), ...table.slice(1).map(line)].join('\n')}\n\n`);
  process.stdout.write(`peak RSS: portico ${peaks.main!.toFixed(0)} MB, portico with limits ${peaks.limited!.toFixed(0)} MB, bare ${peaks.bare!.toFixed(0)} MB (bar: < ${MEMORY_LIMIT_MB} MB)\n`);
  process.stdout.write(`portico serve answered /healthz ${startMs.toFixed(0)} ms after it was spawned (bar: <= ${START_LIMIT_MS} ms)\n`);
}

interface MailThroughput {
  messagesPerSecond: number;
  cpuMicrosPerMessage: number;
  failed: number;
  inFlight: number;
}

/** Informational: Portico's SMTP adapter alone, pinned like the servers. */
async function mailThroughput(smtpUrl: string): Promise<MailThroughput> {
  const { execFile } = await import('node:child_process');
  const script = join(import.meta.dirname, 'mail-throughput.ts');
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile('taskset', ['-c', SERVER_CPUS, process.execPath, '--import', 'tsx', script, smtpUrl, String(QUICK ? 1 : 3)], (error, out) => (error ? reject(error) : resolve(out))),
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as MailThroughput;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
