// The processes the bench runs: Portico as operators run it (`portico serve`), the bare node:http twin
// replaying its answers, and an SMTP sink. Each is its own process so RSS is its own, and the servers can
// be pinned to one core, apart from wrk and the sink.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Scenario } from './scenarios.js';
import type { BenchRequest } from './wrk.js';

const ROOT = join(import.meta.dirname, '..');

export interface Running {
  url: string;
  pid: number;
  close(): Promise<void>;
}

/** What a server answered to one request: replayed byte for byte by the bare server. */
export interface Answer {
  status: number;
  /** Name/value pairs in the order and case they came on the wire. */
  headers: [string, string][];
  body: string;
}

/** `taskset -c cpus command...`, or the command alone when no pinning is asked for. */
function pinned(cpus: string | undefined, command: string, args: string[]): [string, string[]] {
  return cpus ? ['taskset', ['-c', cpus, command, ...args]] : [command, args];
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 12_000);
  await once(child, 'exit');
  clearTimeout(timer);
}

/** The SMTP sink runs in its own process, as a real mail server would. */
export async function startSmtpSink(cpus?: string): Promise<Running> {
  const [command, args] = pinned(cpus, process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'smtp-sink.ts')]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit').then(() => Promise.reject(new Error('the SMTP sink exited before listening')));
  exited.catch(() => {});
  const [line] = (await Promise.race([once(child.stdout!, 'data'), exited])) as [Buffer];
  return { url: line.toString().trim(), pid: child.pid!, close: () => stop(child) };
}

export interface Portico extends Running {
  /** Milliseconds from spawning `portico serve` to its first 200 on /healthz. */
  startMs: number;
}

/**
 * Node's flags for `portico serve`, as the bin's first line gives them (`#!/usr/bin/env -S node <flags>`,
 * which `npm start` runs): the bench runs Portico as operators do.
 */
export async function startFlags(): Promise<string[]> {
  const [shebang] = (await readFile(join(ROOT, 'dist', 'cli.js'), 'utf8')).split('\n', 1);
  const match = /^#!\/usr\/bin\/env -S node((?: --[\w-]+(?:=\S+)?)*)$/.exec(shebang ?? '');
  if (!match) throw new Error(`dist/cli.js does not start with "#!/usr/bin/env -S node [flags]": ${shebang}`);
  return match[1]!.trim().split(' ').filter(Boolean);
}

/**
 * `node <npm start's flags> dist/cli.js serve` with its own SQLite file in `dir` and the given extra
 * environment, logging at `logLevel` to `<dir>/<name>.log` as it would to a file under systemd or a
 * container runtime. Without `smtpUrl`, mail goes to the outbox folder under `cwd`.
 */
export async function startPortico(options: {
  smtpUrl?: string;
  dir: string;
  name: string;
  logLevel: string;
  env?: Record<string, string>;
  cpus?: string;
  cwd?: string;
  /** The checkout whose dist/ runs (`npm run bench:compare`): this one by default. */
  root?: string;
}): Promise<Portico> {
  // PUBLIC_URL must be the real origin: /mcp answers only Hosts that name this server (D3).
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: url,
    DATABASE_URL: `sqlite:${join(options.dir, `${options.name}.sqlite`)}`,
    ...(options.smtpUrl ? { SMTP_URL: options.smtpUrl } : {}),
    RATE_LIMITS: 'off',
    // wrk's connections all come from one address: the share one address may hold (D19) is lifted, as the
    // rate limits are, so that the bench measures the node's work. The hostile scenario keeps the default.
    MAX_CONNECTIONS_PER_ADDRESS: '10000',
    LOG_LEVEL: options.logLevel,
    ...options.env,
  };
  const started = performance.now();
  const [command, args] = pinned(options.cpus, process.execPath, [...(await startFlags()), join(options.root ?? ROOT, 'dist', 'cli.js'), 'serve']);
  const log = openSync(join(options.dir, `${options.name}.log`), 'a');
  const child = spawn(command, args, { env, cwd: options.cwd ?? options.root ?? ROOT, stdio: ['ignore', log, 'inherit'] });
  closeSync(log);
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`portico serve (${options.name}) exited before answering /healthz`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { url, pid: child.pid!, startMs: performance.now() - started, close: () => stop(child) };
}

export interface Bare extends Running {
  /** Makes the bare server answer `request` with `answer` from now on. */
  teach(request: BenchRequest, answer: Answer): Promise<void>;
}

export async function startBare(cpus?: string): Promise<Bare> {
  const [command, args] = pinned(cpus, process.execPath, [join(import.meta.dirname, 'bare-server.mjs')]);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const [{ port }] = (await once(child, 'message')) as [{ port: number }];
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async teach(request, answer) {
      child.send({ key: answerKey(request), answer });
      await once(child, 'message');
    },
    close: () => stop(child),
  };
}

const answerKey = (request: Pick<BenchRequest, 'method' | 'path'>) => `${request.method} ${request.path}`;

// Node's http layer writes these itself, for both servers alike.
const WRITTEN_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

export async function recordAnswer(baseUrl: string, request: BenchRequest): Promise<Answer> {
  const req = httpRequest(`${baseUrl}${request.path}`, { method: request.method, headers: request.headers });
  req.end(request.body);
  const [response] = (await once(req, 'response')) as [IncomingMessage];
  let body = '';
  for await (const chunk of response) body += chunk;
  const headers: [string, string][] = [];
  for (let i = 0; i < response.rawHeaders.length; i += 2) {
    const [name, value] = [response.rawHeaders[i]!, response.rawHeaders[i + 1]!];
    if (!WRITTEN_BY_NODE.has(name.toLowerCase())) headers.push([name, value]);
  }
  return { status: response.statusCode!, headers, body };
}

/** CPU time a process has used so far, user and system, in ms (Linux /proc: utime and stime, in ticks of 10 ms). */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name (which may hold spaces) in parentheses: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident memory of a process now and at its peak, in MB (Linux /proc). */
export async function memory(pid: number): Promise<{ rssMb: number; peakMb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

export async function freePort(): Promise<number> {
  const probe = createNetServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Spends the limited instance's contact allowance, so every later request takes the 429 path. */
export async function exhaustContactLimit(server: Portico, scenario: Scenario): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const response = await fetch(`${server.url}${scenario.path}`, { method: scenario.method, headers: scenario.headers, body: scenario.body });
    await response.arrayBuffer();
    if (response.status === 429) return;
  }
  throw new Error('the contact rate limit never answered 429');
}
