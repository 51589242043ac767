// How fast this machine is right now. The machines the suites run on are shared virtual machines whose
// speed moves 2.5-3x within the hour (docs/performance.md), so a bar on an absolute time, set on a fast
// spell, fails on a slow one however well the node does. The gauge is the project's usual yardstick: a
// bare `node:http` server, measured in the same run, from the same process as the load.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';

/**
 * The rate the gauge reaches on a fast spell of the 2-core machines CI runs on, where the bars on a time
 * were set (requests a second: a bare server in a process of its own, 50 keep-alive connections of this
 * process). An idle machine reads 5,500-8,000 from one second to the next; a slow spell, a third of it.
 */
export const FAST_SPELL_RATE = 7_500;

/** The most a bar is scaled by: a machine slower than this is slower than any spell seen, and fails. */
const MOST = 3;

const BARE = `const s = require('node:http').createServer((q, r) => r.end('{"status":"ok"}'));
s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));`;

/**
 * Requests a second a bare `node:http` server answers to 50 keep-alive connections of this process: the
 * median of three readings of `ms` each, since one reading moves by a fifth from one second to the next.
 */
export async function bareRate(ms = 500): Promise<number> {
  const child = spawn(process.execPath, ['-e', BARE], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const port = Number(line.toString().trim());
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    const get = () =>
      new Promise<void>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/', agent }, (res) => res.resume().on('end', resolve));
        req.on('error', reject).end();
      });
    let answered = 0;
    // A short warm-up, so that the figure is the loop's speed and not its compilation.
    const run = async (until: number, count: boolean) => {
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (performance.now() < until) {
            await get();
            if (count) answered++;
          }
        }),
      );
    };
    await run(performance.now() + 200, false);
    const rates: number[] = [];
    for (let reading = 0; reading < 3; reading++) {
      answered = 0;
      const started = performance.now();
      await run(started + ms, true);
      rates.push(answered / ((performance.now() - started) / 1000));
    }
    agent.destroy();
    return rates.sort((a, b) => a - b)[1]!;
  } finally {
    child.kill();
  }
}

/** How many times slower than a fast spell the machine is now, from 1 (fast) to 3. */
export async function slowdown(): Promise<number> {
  return Math.min(MOST, Math.max(1, FAST_SPELL_RATE / (await bareRate())));
}

/**
 * Runs `work` between two readings of the gauge, the second a second after it ended so that what the work
 * left running has settled, and gives the slower: the factor by which a bar on a time that was set on a
 * fast spell is scaled.
 */
export async function measuredAround<T>(work: () => Promise<T>): Promise<{ result: T; slowdown: number }> {
  const before = await slowdown();
  const result = await work();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return { result, slowdown: Math.max(before, await slowdown()) };
}

/** The factor, as the failure message of a scaled bar gives it. */
export const describeSlowdown = (factor: number) => `bar scaled by ${factor.toFixed(2)}: the machine is that much slower than on a fast spell`;
