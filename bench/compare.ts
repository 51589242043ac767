// `npm run bench:compare -- REF --only word,word [--rounds N] [--postgres]`: this checkout against another
// revision of Portico, each built from its own tree, driven alternately by wrk on the same scenarios in one
// run; on SQLite, or with --postgres on PostgreSQL + Redis (a database and a key prefix for each side).
// What a special case buys (docs/performance.md, "Special cases") is read here: commit the code with
// the piece switched off on a branch, and compare the two.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { distributedStores, type DistributedStores } from './distributed.js';
import { median } from './pairs.js';
import { credentials, scenarios, type Scenario } from './scenarios.js';
import { cpuMs, exhaustContactLimit, memory, startPortico, startSmtpSink, type Portico, type Running } from './servers.js';
import { ensureWrk, wrk, type Load } from './wrk.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const SERVER_CPUS = '0';
const CLIENT_CPUS = cpus().length > 1 ? `1-${cpus().length - 1}` : '0';
const CONNECTIONS = 50;
const SECONDS = 2;

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { only: { type: 'string' }, rounds: { type: 'string', default: '5' }, 'log-level': { type: 'string', default: 'info' }, postgres: { type: 'boolean', default: false } },
});
const [ref] = positionals;
if (!ref || !args.only) throw new Error('usage: npm run bench:compare -- REF --only word,word [--rounds N] [--postgres]');
const ROUNDS = Number(args.rounds);

interface Side {
  label: string;
  main: Portico;
  limited: Portico;
  scenarios: Scenario[];
}

/** REF's tree beside this one, built with this checkout's packages. */
async function buildRevision(dir: string): Promise<string> {
  const tree = join(dir, 'tree');
  await run('git', ['-C', ROOT, 'worktree', 'add', '--detach', tree, ref!]);
  await symlink(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
  await run('npm', ['run', 'build'], { cwd: tree, maxBuffer: 1 << 24 });
  return tree;
}

async function main(): Promise<void> {
  ensureWrk();
  const dir = await mkdtemp(join(tmpdir(), 'portico-compare-'));
  const running: Running[] = [];
  const sideStores: DistributedStores[] = [];
  let tree: string | undefined;
  try {
    tree = await buildRevision(dir);
    const sink = await startSmtpSink(CLIENT_CPUS);
    running.push(sink);
    const start = async (label: string, root: string): Promise<Side> => {
      const common = { smtpUrl: sink.url, dir, cpus: SERVER_CPUS, logLevel: args['log-level'], root };
      let env: Record<string, string> = {};
      if (args.postgres) {
        const stores = await distributedStores();
        if (typeof stores === 'string') throw new Error(`--postgres: ${stores}`);
        sideStores.push(stores);
        env = stores.env;
      }
      const main = await startPortico({ ...common, name: `${label}-main`, env });
      const limited = await startPortico({ ...common, name: `${label}-limited`, env: { ...env, RATE_LIMITS: 'default' } });
      running.push(main, limited);
      return { label, main, limited, scenarios: scenarios(await credentials(main.url)) };
    };
    const sides = [await start('ref', tree), await start('head', ROOT)];
    const words = args.only!.split(',').filter(Boolean);
    const names = sides[0]!.scenarios.map((s) => s.name).filter((name) => words.some((word) => name.includes(word)));
    if (!names.length) throw new Error(`--only ${args.only} matches no scenario`);

    const rows: string[] = [];
    for (const name of names) {
      const pick = (side: Side) => {
        const scenario = side.scenarios.find((s) => s.name === name)!;
        return { scenario, server: scenario.instance === 'limited' ? side.limited : side.main };
      };
      for (const side of sides) {
        const { scenario, server } = pick(side);
        if (scenario.expectedStatus === 429) await exhaustContactLimit(server, scenario);
        await load(server, scenario, dir, 1);
      }
      process.stderr.write(`${name}: `);
      const rounds: { loads: Load[]; cpu: number[] }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate who goes first, so a slow drift of the machine does not favour one side.
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        const loads: Load[] = [];
        const cpu: number[] = [];
        for (const i of order) {
          const { scenario, server } = pick(sides[i]!);
          const before = await cpuMs(server.pid);
          loads[i] = await load(server, scenario, dir, SECONDS);
          cpu[i] = ((await cpuMs(server.pid)) - before) / (loads[i]!.reqPerSec * SECONDS);
        }
        rounds.push({ loads, cpu });
        process.stderr.write(`${(loads[1]!.reqPerSec / loads[0]!.reqPerSec).toFixed(3)} `);
      }
      process.stderr.write('\n');
      const of = (i: number, pick: (l: Load) => number) => median(rounds.map((r) => pick(r.loads[i]!)));
      const ratio = median(rounds.map((r) => r.loads[1]!.reqPerSec / r.loads[0]!.reqPerSec));
      const cpu = (i: number) => median(rounds.map((r) => r.cpu[i]!)).toFixed(3);
      rows.push(
        `| ${name} | ${of(0, (l) => l.reqPerSec).toFixed(0)} | ${of(1, (l) => l.reqPerSec).toFixed(0)} | ${ratio.toFixed(3)} | ${cpu(0)} / ${cpu(1)} | ${of(0, (l) => l.p99Ms).toFixed(2)} / ${of(1, (l) => l.p99Ms).toFixed(2)} |`,
      );
    }
    const peaks = await Promise.all(sides.map(async (side) => (await memory(side.main.pid)).peakMb.toFixed(0)));
    process.stdout.write(
      [
        `\n${ROUNDS} alternating rounds of ${SECONDS} s at ${CONNECTIONS} connections; servers on CPU ${SERVER_CPUS}, wrk on ${CLIENT_CPUS}; LOG_LEVEL=${args['log-level']}; ${args.postgres ? 'PostgreSQL + Redis' : 'SQLite'}\n`,
        `| scenario | ${ref} req/s | HEAD req/s | HEAD ÷ ${ref} | CPU ms/req ${ref} / HEAD | p99 ms ${ref} / HEAD |`,
        '|---|---|---|---|---|---|',
        ...rows,
        `\npeak RSS of the main node: ${ref} ${peaks[0]} MB, HEAD ${peaks[1]} MB\n`,
      ].join('\n'),
    );
  } finally {
    for (const server of running.reverse()) await server.close();
    for (const stores of sideStores) await stores.close();
    if (tree) await run('git', ['-C', ROOT, 'worktree', 'remove', '--force', tree]);
    await rm(dir, { recursive: true, force: true });
  }
}

const load = (server: Running, scenario: Scenario, dir: string, seconds: number) =>
  wrk({ url: server.url, request: scenario, connections: CONNECTIONS, seconds, expectedStatus: scenario.expectedStatus, dir, cpus: CLIENT_CPUS });

await main();
