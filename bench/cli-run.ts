// A portico command run beside the bench's servers, as an operator runs it, with its peak memory.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startFlags } from './servers.js';

const ROOT = join(import.meta.dirname, '..');

/**
 * `portico ARGS` as an operator runs it, with its peak resident memory (GNU time's %M); stdout is counted,
 * not kept. It runs on wrk's cores: what the served requests feel is then the database, not a stolen CPU.
 */
export async function runCli(args: string[], cwd: string, env: Record<string, string>, cpus: string): Promise<{ lines: number; output: string; seconds: number; peakMb: number }> {
  const started = performance.now();
  // With the V8 flags of the bin's first line, as `portico` runs.
  const child = spawn('taskset', ['-c', cpus, '/usr/bin/time', '-f', 'PEAK_KB %M', process.execPath, ...(await startFlags()), join(ROOT, 'dist', 'cli.js'), ...args], {
    cwd,
    // The commands' own logs would mix with what they print (the NDJSON counted here).
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let lines = 0;
  let last = '';
  const counting = (async () => {
    for await (const line of createInterface({ input: child.stdout! })) {
      lines++;
      last = line;
    }
  })();
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  const [code] = (await once(child, 'exit')) as [number];
  await counting;
  const peak = /PEAK_KB (\d+)/.exec(stderr);
  if (code !== 0 || !peak) throw new Error(`portico ${args.join(' ')} exited ${code}: ${stderr}`);
  return { lines, output: last, seconds: (performance.now() - started) / 1000, peakMb: Number(peak[1]) / 1024 };
}
