// Rate-limit counters shared by all nodes through Redis, and per-node memory while Redis is away.
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rateLimitHook } from '../../src/http/route-rate-limit.js';
import { redisRateLimitStore } from '../../src/adapters/redis/rate-limit-store.js';
import type { CounterStore } from '../../src/ports/rate-limiter.js';
import { freePort } from '../support/app.js';
import { answersPing, canRunPrivateRedis, MACHINE_REDIS, startPrivateRedis } from '../support/redis.js';

const COMMAND_TIMEOUT_MS = 250;

const machineRedisAnswers = await answersPing(MACHINE_REDIS);
if (!machineRedisAnswers) console.warn(`SKIPPED part of test/storage/redis-rate-limit.test.ts: no Redis answers at ${MACHINE_REDIS}.`);
const canRunRedis = canRunPrivateRedis;
if (!canRunRedis) console.warn(`SKIPPED part of test/storage/redis-rate-limit.test.ts: /usr/bin/redis-server is missing (apt-get install redis-server).`);

// Every node, server and key a test makes is undone after it, even when it fails.
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(!machineRedisAnswers)('rate-limit counters in Redis', () => {
  it('counts one budget across two nodes that share a key prefix', async () => {
    const prefix = await isolatedPrefix();
    const [a, b] = [await startNode({ keyPrefix: prefix }), await startNode({ keyPrefix: prefix })];

    const counts = [await incr(a.store, '203.0.113.7token'), await incr(b.store, '203.0.113.7token'), await incr(a.store, '203.0.113.7token')];
    expect(counts.map((c) => c.current)).toEqual([1, 2, 3]);
    expect((await incr(b.store, '203.0.113.7token')).current).toBe(4);
    expect(await directGet(MACHINE_REDIS, `${prefix}203.0.113.7token`)).toBe('4');
  });

  it('gives each of many requests counted at once its own count, and each key its own counter', async () => {
    const prefix = await isolatedPrefix();
    const { store } = await startNode({ keyPrefix: prefix });

    const [counts, elsewhere] = await Promise.all([Promise.all(Array.from({ length: 50 }, () => incr(store, 'crowd'))), incr(store, 'another')]);
    expect(counts.map((c) => c.current).sort((x, y) => x - y)).toEqual(oneTo(50));
    expect(elsewhere.current).toBe(1);
    expect(await directGet(MACHINE_REDIS, `${prefix}crowd`)).toBe('50');
  });

  it('sends the counts asked for in one turn to Redis as one command', async () => {
    const prefix = await isolatedPrefix();
    const { store } = await startNode({ keyPrefix: prefix });
    const monitor = await new Redis(MACHINE_REDIS, { maxRetriesPerRequest: 0 }).monitor();
    cleanups.push(async () => monitor.disconnect());
    const commands: string[][] = [];
    // The commands a client sent, not those its script ran.
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && args.some((arg) => arg.startsWith(prefix))) commands.push(args);
    });

    await Promise.all([...Array.from({ length: 20 }, () => incr(store, 'a')), incr(store, 'b'), incr(store, 'c')]);
    await vi.waitFor(() => expect(commands).toHaveLength(1));
    expect(commands[0]![0]!.toLowerCase()).toMatch(/^eval(sha)?$/);
  });

  it('reports the time left in the window and starts a new window once it has passed', async () => {
    const { store } = await startNode({ keyPrefix: await isolatedPrefix() });

    expect(await incr(store, 'client', 300)).toEqual({ current: 1, ttl: 300 });
    const second = await incr(store, 'client', 300);
    expect(second.current).toBe(2);
    expect(second.ttl).toBeGreaterThan(0);
    expect(second.ttl).toBeLessThanOrEqual(300);
    await sleep(400);
    expect(await incr(store, 'client', 300)).toEqual({ current: 1, ttl: 300 });
  });

  it('gives a counter found without an expiry one, so that its client is not limited for good', async () => {
    const prefix = await isolatedPrefix();
    const { store } = await startNode({ keyPrefix: prefix });
    const redis = new Redis(MACHINE_REDIS, { maxRetriesPerRequest: 0 });
    cleanups.push(async () => redis.disconnect());
    await redis.set(`${prefix}stuck`, '7');

    expect(await incr(store, 'stuck', 60_000)).toEqual({ current: 8, ttl: 60_000 });
    expect(await redis.pttl(`${prefix}stuck`)).toBeGreaterThan(59_000);
  });

  it('answers 429 through Fastify once two nodes together exceed the limit', async () => {
    const prefix = await isolatedPrefix();
    const [a, b] = [await limitedApp(prefix), await limitedApp(prefix)];

    const statuses = [];
    for (const app of [a, b, a, b]) statuses.push((await app.inject({ method: 'GET', url: '/limited' })).statusCode);
    expect(statuses).toEqual([200, 200, 429, 429]);
  });
});

describe.skipIf(!canRunRedis)('rate-limit counters while Redis is away', () => {
  it('counts in memory when Redis dies, warns once, and returns to Redis when it is back', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const server = await startRedisServer(port);
    const node = await startNode({ url, maxReconnectDelayMs: 200 });
    await incr(node.store, 'before');
    expect(await directGet(url, 'portico:rl:before')).toBe('1');

    await server.stop();
    const during = await timedIncrements(node.store, 'during', 10);
    expect(during.counts).toEqual(oneTo(10));
    expect(during.slowestMs).toBeLessThan(300);
    expect(node.log.warnings).toHaveLength(1);

    await startRedisServer(port);
    await until(() => node.log.infos.length > 0, 5_000);
    await incr(node.store, 'after');
    expect(await directGet(url, 'portico:rl:after')).toBe('1');
    expect(node.log).toMatchObject({ warnings: [expect.any(String)], infos: [expect.any(String)] });
  });

  it('counts a burst in memory within the command timeout when Redis stops answering, and returns after', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const server = await startRedisServer(port);
    const node = await startNode({ url, maxReconnectDelayMs: 200 });
    await incr(node.store, 'before');

    server.pause();
    const burst = await Promise.all(Array.from({ length: 20 }, () => timedIncrements(node.store, 'burst', 1)));
    expect(burst.flatMap((b) => b.counts).sort((x, y) => x - y)).toEqual(oneTo(20));
    expect(Math.max(...burst.map((b) => b.slowestMs))).toBeLessThan(COMMAND_TIMEOUT_MS + 100);
    // The timed-out connection was dropped, so later requests do not wait for it.
    const later = await timedIncrements(node.store, 'burst', 3);
    expect(later.counts).toEqual([21, 22, 23]);
    expect(later.slowestMs).toBeLessThan(50);
    expect(node.log.warnings).toHaveLength(1);

    server.resume();
    await until(() => node.log.infos.length > 0, 5_000);
    await incr(node.store, 'after');
    expect(await directGet(url, 'portico:rl:after')).toBe('1');
  });

  it('counts in memory within the command timeout when a server accepts connections but never replies', async () => {
    const port = await silentServer();
    const node = await startNode({ url: `redis://127.0.0.1:${port}`, awaitReady: false });

    const during = await timedIncrements(node.store, 'client', 5);
    expect(during.counts).toEqual(oneTo(5));
    expect(during.slowestMs).toBeLessThan(COMMAND_TIMEOUT_MS + 100);
    await node.ready();
    expect(node.log.warnings).toHaveLength(1);
    expect(node.log.infos).toHaveLength(0);
  });

  it('settles ready() and answers from memory when no Redis listens at all', async () => {
    const node = await startNode({ url: `redis://127.0.0.1:${await freePort()}` });

    expect((await timedIncrements(node.store, 'client', 3)).counts).toEqual([1, 2, 3]);
    expect(node.log.warnings).toHaveLength(1);
  });
});

// --- nodes and their logs ---

interface NodeOptions {
  url?: string;
  keyPrefix?: string;
  maxReconnectDelayMs?: number;
  awaitReady?: boolean;
}

async function startNode({ url = MACHINE_REDIS, awaitReady = true, ...options }: NodeOptions) {
  const log = { warnings: [] as string[], infos: [] as string[] };
  const limits = redisRateLimitStore({
    url,
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
    logger: { warn: (_details, message) => log.warnings.push(message), info: (_details, message) => log.infos.push(message) },
    ...options,
  });
  cleanups.push(() => limits.close());
  if (awaitReady) await limits.ready();
  return { store: limits.counters, ready: limits.ready, log };
}

async function limitedApp(keyPrefix: string): Promise<FastifyInstance> {
  const { store } = await startNode({ keyPrefix });
  const app = Fastify();
  cleanups.push(() => app.close());
  app.get('/limited', { onRequest: rateLimitHook('token', { max: 2, windowSeconds: 60 }, store, () => {}) }, async () => ({ ok: true }));
  return app;
}

function incr(store: CounterStore, key: string, windowMs = 60_000, max = 3): Promise<{ current: number; ttl: number }> {
  return new Promise((resolve, reject) => store.incr(key, (error, counter) => (error ? reject(error) : resolve(counter)), windowMs, max));
}

async function timedIncrements(store: CounterStore, key: string, times: number) {
  const counts: number[] = [];
  let slowestMs = 0;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    counts.push((await incr(store, key)).current);
    slowestMs = Math.max(slowestMs, performance.now() - started);
  }
  return { counts, slowestMs };
}

// --- Redis servers of our own ---

async function startRedisServer(port: number) {
  const server = await startPrivateRedis(port);
  cleanups.push(server.stop);
  return server;
}

async function silentServer(): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as { port: number }).port;
}

// --- looking at Redis directly ---

async function directGet(url: string, key: string): Promise<string | null> {
  const redis = new Redis(url, { maxRetriesPerRequest: 0 });
  try {
    return await redis.get(key);
  } finally {
    redis.disconnect();
  }
}

/** A key prefix of this test alone; its keys are deleted after the test. */
async function isolatedPrefix(): Promise<string> {
  const prefix = `portico:rl:test:${randomUUID()}:`;
  cleanups.push(async () => {
    const redis = new Redis(MACHINE_REDIS, { maxRetriesPerRequest: 0 });
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 100);
        if (keys.length) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  });
  return prefix;
}

const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${timeoutMs} ms`);
    await sleep(20);
  }
}
