// The machine's Redis for the suites that share counters (127.0.0.1:6379): whether it answers, and
// removing what a run left under its key prefix. With no server the suites say they are skipped.
import { Redis } from 'ioredis';

export const MACHINE_REDIS = process.env.PORTICO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** True when a Redis at `url` answers PING within half a second. */
export async function answersPing(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** True when the machine's Redis answers; otherwise prints why `suite` is skipped. */
export async function redisAvailable(suite: string): Promise<boolean> {
  if (await answersPing(MACHINE_REDIS)) return true;
  console.warn(`SKIPPED ${suite}: no Redis answers at ${MACHINE_REDIS}; .ci/run requires it.`);
  return false;
}

/** Deletes every key under `prefix` on the machine's Redis. */
export async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(MACHINE_REDIS);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    await redis.quit();
  }
}
