// Hostile traffic against a node, from loopback addresses of its own (all of 127/8 is this machine's), and
// what a client elsewhere sees meanwhile: for test/long/hostile-load.test.ts and the bench's hostile scenario.
import { request, Agent, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { residentMb } from './process-stats.js';

export interface Target {
  port: number;
  pid: number;
}

export interface HealthChecks {
  /** Checks sent. */
  sent: number;
  /** Checks answered 200 within their deadline. */
  answered: number;
  /** The 95th percentile of the answered checks' times, in ms. */
  p95Ms: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One GET /healthz on a new connection from `from` (Connection: close): whether it was answered 200 in time, and when. */
function healthCheck(target: Target, from: string, deadlineMs: number): Promise<number | undefined> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port: target.port, path: '/healthz', localAddress: from, agent: false, timeout: deadlineMs }, (res: IncomingMessage) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

/** A health check from `from` every `everyMs` until `stop` resolves, each on a new connection. */
export async function checkHealthUntil(target: Target, stop: Promise<unknown>, options: { from?: string; everyMs?: number; deadlineMs?: number } = {}): Promise<HealthChecks> {
  const { from = '127.0.0.1', everyMs = 400, deadlineMs = 5_000 } = options;
  let stopped = false;
  void stop.then(() => (stopped = true));
  const checks: Promise<number | undefined>[] = [];
  while (!stopped) {
    checks.push(healthCheck(target, from, deadlineMs));
    await sleep(everyMs);
  }
  const times = (await Promise.all(checks)).filter((time): time is number => time !== undefined).sort((a, b) => a - b);
  return { sent: checks.length, answered: times.length, p95Ms: times.length ? times[Math.min(times.length - 1, Math.floor(times.length * 0.95))]! : Infinity };
}

/** The highest resident memory of `pid` until `stop` resolves, sampled every 50 ms. */
export async function peakRssUntil(pid: number, stop: Promise<unknown>): Promise<number> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  let peak = 0;
  while (!stopped) {
    peak = Math.max(peak, await residentMb(pid).catch(() => 0));
    await sleep(50);
  }
  return peak;
}

/**
 * Keeps `count` connections from `from` open for `seconds`, each opened again as soon as the node closes it:
 * `idle` ones after one keep-alive request answered, `slowloris` ones trickling a header line every 2 s,
 * `slow-body` ones a POST /api/contact whose 10 KB body trickles in a byte every 2 s.
 */
export async function holdConnections(target: Target, kind: 'idle' | 'slowloris' | 'slow-body', options: { from: string; count: number; seconds: number }): Promise<void> {
  const until = Date.now() + options.seconds * 1000;
  const open = new Set<Socket>();
  const one = () => {
    if (Date.now() >= until) return;
    const socket = connect({ host: '127.0.0.1', port: target.port, localAddress: options.from });
    open.add(socket);
    let drip: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      if (kind === 'idle') socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      else if (kind === 'slow-body') {
        socket.write('POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{');
        drip = setInterval(() => socket.write(' '), 2_000);
      } else {
        socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        drip = setInterval(() => socket.write(`X-Drip-${Date.now()}: 1\r\n`), 2_000);
      }
    });
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(drip);
      open.delete(socket);
      // Reopened at once, as an attacker would; a beat later only when refused outright, so the loop yields.
      setImmediate(one);
    });
  };
  for (let i = 0; i < options.count; i++) one();
  await sleep(Math.max(0, until - Date.now()));
  for (const socket of open) socket.destroy();
}

/** `count` loopback addresses of their own, `127.0.<block>.1` on: one attacker's many addresses. */
export const loopbackAddresses = (block: number, count: number): string[] => Array.from({ length: count }, (_, i) => `127.0.${block}.${i + 1}`);

/**
 * `sockets` connections from each address of `from`, each writing 64 KB of pipelined GET /openapi.json and
 * reading nothing; resolves when the node closed them all.
 */
export async function pipelinedFlood(target: Target, options: { from: string | readonly string[]; sockets: number }): Promise<void> {
  const line = `GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\n\r\n`;
  const burst = line.repeat(Math.floor((64 * 1024) / line.length));
  const from = typeof options.from === 'string' ? [options.from] : options.from;
  await Promise.all(
    Array.from(
      { length: options.sockets * from.length },
      (_, i) =>
        new Promise<void>((resolve) => {
          const socket = connect({ host: '127.0.0.1', port: target.port, localAddress: from[i % from.length] }, () => socket.write(burst));
          socket.pause();
          socket.on('error', () => undefined);
          // A node that never closes it fails the flood's bound; the socket is let go after 10 s either way.
          const giveUp = setTimeout(() => socket.destroy(), 10_000);
          socket.once('close', () => {
            clearTimeout(giveUp);
            resolve();
          });
        }),
    ),
  );
}

export interface Overload {
  /** Answers by status (and socket errors by code). */
  outcomes: Record<string, number>;
  /** The 99th percentile of the answered requests' times, in ms. */
  p99Ms: number;
}

/**
 * `connections` clients sending valid inquiries back to back for `seconds`, spread over `addresses` loopback
 * addresses (127.0.3.x), each waiting for its answer before the next (a refused connection is opened again).
 */
export async function inquiryOverload(target: Target, options: { connections: number; addresses: number; seconds: number }): Promise<Overload> {
  // Each a message of its own: the same one again would be a duplicate (D20), stored and never delivered.
  let sent = 0;
  const run = Date.now();
  const inquiry = () => JSON.stringify({ name: 'Ana García', email: 'overload@example.com', message: `We manage 40 buildings and would like a demo. Ref ${run}-${++sent}.`, privacy: true });
  const until = Date.now() + options.seconds * 1000;
  const outcomes: Record<string, number> = {};
  const times: number[] = [];
  const count = (outcome: string) => (outcomes[outcome] = (outcomes[outcome] ?? 0) + 1);
  const perAddress = Math.ceil(options.connections / options.addresses);
  const send = (agent: Agent, from: string) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const body = inquiry();
      const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
      const req = request({ host: '127.0.0.1', port: target.port, method: 'POST', path: '/api/contact', agent, localAddress: from, headers }, (res) => {
        res.resume();
        res.on('end', () => {
          count(String(res.statusCode));
          times.push(performance.now() - started);
          resolve();
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        count(error.code ?? 'error');
        setTimeout(resolve, 10);
      });
      req.end(body);
    });
  const clients: Promise<void>[] = [];
  for (let a = 0; a < options.addresses; a++) {
    const from = `127.0.3.${a + 1}`;
    const agent = new Agent({ keepAlive: true, maxSockets: perAddress });
    for (let c = 0; c < perAddress; c++) {
      clients.push(
        (async () => {
          while (Date.now() < until) await send(agent, from);
        })(),
      );
    }
  }
  await Promise.all(clients);
  times.sort((a, b) => a - b);
  return { outcomes, p99Ms: times.length ? times[Math.floor(times.length * 0.99)]! : Infinity };
}

/**
 * Inquiries from 20 connections for 3 s, so that the node has answered some before it is flooded, as a
 * node in service has: flooded within a second of its start, before its code is compiled, its first
 * answers come up to 5 s late (docs/security.md, the overload row), which is not what the overload's bar
 * is about.
 */
export async function warmUp(target: Target): Promise<void> {
  await inquiryOverload(target, { connections: 20, addresses: 2, seconds: 3 });
}

/**
 * The 99th percentile of the times a node's own access lines give for answers to `path` (its `ms`: from
 * the request's arrival to its answer leaving): what the node spent, without the time a request waited in
 * the kernel for the node to read it, or in the client to be sent.
 */
export function nodeP99Ms(accessLog: string, path: string): number {
  const times = accessLog
    .split('\n')
    .filter((line) => line.includes(`"route":"${path}"`))
    .map((line) => Number(/"ms":([\d.]+)/.exec(line)?.[1]))
    .filter((ms) => !Number.isNaN(ms))
    .sort((a, b) => a - b);
  return times.length ? times[Math.floor(times.length * 0.99)]! : Infinity;
}
