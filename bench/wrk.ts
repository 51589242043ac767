// Drives a server with Debian's wrk: a compiled load generator that does not saturate its own core
// before the server does, which is what autocannon did here and why ratios came out too flattering.
import { execFile, spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** Each EACH_REQUEST in it is replaced by a value of its own for every request (an inquiry is never a duplicate of another). */
  body?: string;
}

/** In a body, a value no two requests of any run share. */
export const EACH_REQUEST = '{{each-request}}';

export interface Load {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Responses whose status was not the one the scenario expects (wrk counts statuses >= 400). */
  unexpectedStatus: number;
  /** Connect, read, write and timeout errors. */
  socketErrors: number;
}

/** Installs Debian's wrk when it is missing, as `.ci/run` installs chromium: the bench needs nothing done by hand. */
export function ensureWrk(): void {
  if (spawnSync('wrk', ['--version']).error === undefined) return;
  process.stderr.write('bench: wrk is missing; installing Debian package wrk...\n');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const asRoot = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  for (const args of [
    ['apt-get', 'update'],
    ['apt-get', 'install', '-y', '--no-install-recommends', 'wrk'],
  ]) {
    const [command, ...rest] = [...asRoot, ...args] as [string, ...string[]];
    const result = spawnSync(command, rest, { env, stdio: ['ignore', 'ignore', 'inherit'] });
    if (result.status !== 0) throw new Error(`could not install wrk (${[command, ...rest].join(' ')} exited ${result.status ?? result.error?.message}); install Debian package wrk and run again`);
  }
}

// Lua strings in long brackets need no escaping, provided the level of `=` does not occur in the text.
const luaString = (text: string) => {
  let level = '';
  while (text.includes(`]${level}]`)) level += '=';
  return `[${level}[${text}]${level}]`;
};

/** A wrk script that sends `request`, each connection pausing `pauseMs` before each request, and prints the summary as one JSON line when done. */
function script(request: BenchRequest, pauseMs = 0): string {
  const headers = Object.entries(request.headers ?? {}).map(([name, value]) => `wrk.headers[ ${luaString(name)} ] = ${luaString(value)}`);
  return [
    `wrk.method = "${request.method}"`,
    ...(request.body === undefined ? [] : [`wrk.body = ${luaString(request.body)}`]),
    ...headers,
    ...(request.body?.includes(EACH_REQUEST) ? eachRequest() : []),
    ...(pauseMs > 0 ? [`delay = function() return ${Math.round(pauseMs)} end`] : []),
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'\\nBENCH {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"status":%d,"socket":%d}\\n\',',
    '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))',
    'end',
    '',
  ].join('\n');
}

/** A `request` function that numbers the bodies, after a prefix of this run's own. */
function eachRequest(): string[] {
  const prefix = `${process.pid}-${Date.now()}-${++scripts}`;
  return [
    'local n = 0',
    'request = function()',
    '  n = n + 1',
    `  local body = string.gsub(wrk.body, "${EACH_REQUEST.replace(/[{}-]/g, '%$&')}", "${prefix}-" .. n)`,
    '  return wrk.format(nil, nil, nil, body)',
    'end',
  ];
}

export interface WrkOptions {
  url: string;
  request: BenchRequest;
  connections: number;
  seconds: number;
  /** The status every response should carry; wrk reports only how many were >= 400. */
  expectedStatus: number;
  /** Where the Lua script is written. */
  dir: string;
  /** CPUs wrk is pinned to (taskset), away from the server's. */
  cpus?: string;
  /**
   * Each connection waits this long before each request (wrk's `delay`): a steady load below the server's
   * capacity, whose latencies show what holds the server up rather than how long its queue is.
   */
  pauseMs?: number;
}

let scripts = 0;

export async function wrk(options: WrkOptions): Promise<Load> {
  const file = join(options.dir, `wrk-${++scripts}.lua`);
  await writeFile(file, script(options.request, options.pauseMs));
  const args = ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '-s', file, `${options.url}${options.request.path}`];
  const [command, ...rest] = options.cpus ? ['taskset', '-c', options.cpus, 'wrk', ...args] : ['wrk', ...args];
  const { stdout, stderr } = await run(command!, rest, { maxBuffer: 1 << 20 });
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH '));
  if (!line || stderr.trim()) throw new Error(`wrk failed:\n${stdout}${stderr}`);
  const summary = JSON.parse(line.slice('BENCH '.length)) as { requests: number; durationUs: number; p50Us: number; p99Us: number; status: number; socket: number };
  const failing = options.expectedStatus >= 400 ? summary.requests - summary.status : summary.status;
  return {
    reqPerSec: summary.requests / (summary.durationUs / 1e6),
    p50Ms: summary.p50Us / 1000,
    p99Ms: summary.p99Us / 1000,
    requests: summary.requests,
    unexpectedStatus: failing,
    socketErrors: summary.socket,
  };
}
