// Redis restarted under load (issues 6 and 8): no request fails or waits long because of it, the
// node logs the outage once and its end once, counts in Redis again by itself, and holds no more
// sockets or memory afterwards than before.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../support/app.js';
import { connectionsTo, openSockets, residentMb } from '../support/process-stats.js';
import { canRunPrivateRedis, startPrivateRedis, type PrivateRedis } from '../support/redis.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

if (!canRunPrivateRedis) console.warn('SKIPPED test/cluster/redis-restart.test.ts: /usr/bin/redis-server is missing.');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!canRunPrivateRedis)('Redis restarted while a node counts its limits there', () => {
  let redisPort: number;
  let redis: PrivateRedis;
  let node: ServeProcess;
  let authorization: string;

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startPrivateRedis(redisPort);
    // Limits on and never reached: every token request counts in Redis.
    node = await startServe({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'restart:', RATE_LIMITS: 'token=1000000/m,register=1000/h', LOG_LEVEL: 'info' });
    const client = await (
      await fetch(`${node.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_types: ['client_credentials'], scope: 'contact:write' }),
      })
    ).json();
    authorization = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
  }, 30_000);

  afterAll(async () => {
    node?.child.kill('SIGTERM');
    await node?.exited;
    await redis?.stop();
  });

  it('answers every request, logs the outage and the return once each, and counts in Redis again', async () => {
    const token = async () => {
      const started = Date.now();
      const response = await fetch(`${node.url}/oauth/token`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      await response.arrayBuffer();
      return { status: response.status, ms: Date.now() - started };
    };
    // Warm, with the burst's own concurrency: pools, statements and the 8 keep-alive connections.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 20; i++) await token();
      }),
    );
    const before = { sockets: await openSockets(node.child.pid!), rss: await residentMb(node.child.pid!) };
    expect(await connectionsTo(node.child.pid!, redisPort)).toBe(1);

    const outcomes: { status: number; ms: number }[] = [];
    let bursting = true;
    const clients = Array.from({ length: 8 }, async () => {
      while (bursting) outcomes.push(await token());
    });
    await sleep(400);
    await redis.stop();
    await sleep(800);
    redis = await startPrivateRedis(redisPort);
    await sleep(2_500); // the node's reconnection backoff is capped at 2 s
    bursting = false;
    await Promise.all(clients);

    expect(outcomes.filter((o) => o.status !== 200)).toEqual([]);
    // A dead Redis is noticed at once; a request never waits more than the 250 ms command timeout for it.
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(1_000);
    // A node writes its lines at least once a second.
    await vi.waitFor(() => expect(node.output()).toContain('Redis answers again'), { timeout: 3_000 });
    const logs = node.output();
    expect(logs.match(/Redis is unavailable/g)).toHaveLength(1);
    expect(logs.match(/Redis answers again/g)).toHaveLength(1);

    await token();
    const direct = new Redis(redis.url);
    const keys = await direct.keys('restart:*');
    await direct.quit();
    expect(keys.length, 'the counters are in Redis again').toBeGreaterThan(0);

    const after = { sockets: await openSockets(node.child.pid!), rss: await residentMb(node.child.pid!) };
    // One connection to Redis again, not one per outage or per request; no socket left behind.
    expect(await connectionsTo(node.child.pid!, redisPort)).toBe(1);
    expect(after.sockets, 'open sockets after recovery').toBeLessThanOrEqual(before.sockets + 2);
    expect(after.rss, 'resident MB after recovery').toBeLessThan(before.rss + 60);
  }, 30_000);
});
