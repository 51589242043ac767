// Rate-limit counters in Redis, shared by every node, with per-node memory while Redis is away (issue 6).
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { SharedLocalStore } from '../local-rate-limit-store.js';

export interface RateLimitLogger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export interface RedisRateLimitOptions {
  /** REDIS_URL: `redis://[user:password@]host:port[/db]` or `rediss://` for TLS. */
  url: string;
  logger: RateLimitLogger;
  /** Namespace of every counter, so deployments (and test runs) sharing one Redis stay apart. */
  keyPrefix?: string;
  /** The longest a request waits for Redis before it is counted in memory instead. */
  commandTimeoutMs?: number;
  /** Cap of the reconnection backoff: how late, at worst, a node notices that Redis is back. */
  maxReconnectDelayMs?: number;
}

export interface RateLimitCounter {
  current: number;
  ttl: number;
}

type CounterCallback = (error: Error | null, counter: RateLimitCounter) => void;

/** The shape @fastify/rate-limit calls: `new Store(globalParams)`, `child(routeOptions)`, `incr`, `read`. */
export interface RateLimitStore {
  incr(key: string, callback: CounterCallback, windowMs: number, max: number): void;
  read(key: string, callback: CounterCallback, windowMs: number, max: number): void;
  child(): RateLimitStore;
}

export interface RedisRateLimitStore {
  /** Pass as @fastify/rate-limit's `store` option. */
  Store: new () => RateLimitStore;
  /** Settles once the first connection attempt has succeeded or failed; never rejects. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

// Layout: one string per client and limit, `<prefix><client address or /64><groupId>` -> request count,
// expiring (PEXPIRE) when its window ends; e.g. `portico:rl:203.0.113.7token` = "4", PTTL 41200.
export const DEFAULT_KEY_PREFIX = 'portico:rl:';

// Atomic in one round trip, like @fastify/rate-limit's store/RedisStore.js. Unlike it, a counter found
// without an expiry gets one: otherwise its client would stay limited for good.
const INCREMENT = `
local current = redis.call('INCR', KEYS[1])
local ttl = tonumber(ARGV[1])
if current > 1 then ttl = redis.call('PTTL', KEYS[1]) end
if current == 1 or ttl < 0 then
  ttl = tonumber(ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return {current, ttl}`;

// RedisStore.js's read: the state of a window without counting a request in it.
const READ = `
local current = redis.call('GET', KEYS[1])
if not current then return {0, 0} end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = 0 end
return {tonumber(current), ttl}`;

type ScriptedPipeline = ReturnType<Redis['pipeline']> & {
  porticoRateLimitIncr(key: string, windowMs: number): void;
  porticoRateLimitRead(key: string): void;
};

/**
 * Counters in Redis for @fastify/rate-limit, counted in this node's memory whenever Redis does not answer
 * in time, until it reconnects on its own. ioredis is loaded only here; ready() never rejects.
 */
export function redisRateLimitStore(options: RedisRateLimitOptions): RedisRateLimitStore {
  const { logger, keyPrefix = DEFAULT_KEY_PREFIX, commandTimeoutMs = 250, maxReconnectDelayMs = 2_000 } = options;
  const connectTimeoutMs = Math.max(1_000, commandTimeoutMs * 4);
  // Loaded only here: a node without REDIS_URL never pays ioredis's memory.
  const { Redis: Client } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const redis = new Client(options.url, {
    // A request never waits for a connection that is not there: it is counted in memory at once.
    enableOfflineQueue: false,
    commandTimeout: commandTimeoutMs,
    connectTimeout: connectTimeoutMs,
    maxRetriesPerRequest: 0,
    // Keep trying for ever, so a node returns to the shared counters on its own.
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, maxReconnectDelayMs),
  });
  redis.defineCommand('porticoRateLimitIncr', { numberOfKeys: 1, lua: INCREMENT });
  redis.defineCommand('porticoRateLimitRead', { numberOfKeys: 1, lua: READ });

  // Never the URL: it may carry the password.
  const where = { redis: redisHost(options.url) };
  const fallback = new SharedLocalStore();
  let degraded = false;
  let closing = false;
  let dropping = false;
  const degrade = (error: unknown) => {
    if (degraded || closing) return;
    degraded = true;
    logger.warn({ ...where, err: error }, 'Redis is unavailable: rate limits are counted per node until it answers again');
  };
  const recover = () => {
    if (!degraded || closing) return;
    degraded = false;
    logger.info(where, 'Redis answers again: rate limits are shared by all nodes again');
  };
  // Without an 'error' listener, ioredis would print every failed reconnection.
  redis.on('error', degrade);
  redis.on('close', () => {
    dropping = false;
    degrade(new Error('connection closed'));
  });
  redis.on('ready', recover);

  const settled = new Promise<void>((resolve) => {
    const settle = () => {
      clearTimeout(timer);
      redis.off('ready', settle).off('error', settle);
      resolve();
    };
    const timer = setTimeout(settle, connectTimeoutMs).unref();
    redis.once('ready', settle).once('error', settle);
  });

  const answered = (reply: [number, number], callback: CounterCallback) => {
    recover();
    callback(null, { current: reply[0], ttl: reply[1] });
  };
  const unanswered = (error: Error, fallBack: () => void) => {
    degrade(error);
    // No answer in time (rather than an error reply): drop the connection, so later requests go to
    // memory without waiting, and the reconnection's 'ready' tells us when Redis is back. Once only:
    // the requests in flight on it fail together.
    if (error.name !== 'ReplyError' && redis.status === 'ready' && !dropping) {
      dropping = true;
      redis.disconnect(true);
    }
    fallBack();
  };

  // The counts asked for in one turn of the event loop go to Redis as one pipeline: one write and one
  // read for all of them, where each request would otherwise pay a round trip's system calls and wake
  // Redis once (the token endpoint's requests arrive several a turn under load).
  let waiting: { method: 'incr' | 'read'; key: string; callback: CounterCallback; windowMs: number; max: number }[] = [];
  const flush = () => {
    const batch = waiting;
    waiting = [];
    const pipeline = redis.pipeline() as unknown as ScriptedPipeline;
    for (const { method, key, windowMs } of batch) {
      if (method === 'incr') pipeline.porticoRateLimitIncr(keyPrefix + key, windowMs);
      else pipeline.porticoRateLimitRead(keyPrefix + key);
    }
    // LocalStore answers with its own counter object, which the next count changes: the batch's
    // requests are counted one after another before any of them reads its answer, so each gets a copy.
    const inMemory = (i: number) => () => {
      const { method, key, callback, windowMs, max } = batch[i]!;
      fallback[method](key, (error: Error | null, counter: RateLimitCounter) => callback(error, { current: counter.current, ttl: counter.ttl }), windowMs, max);
    };
    pipeline.exec().then(
      (replies) => replies!.forEach(([error, reply], i) => (error ? unanswered(error, inMemory(i)) : answered(reply as [number, number], batch[i]!.callback))),
      (error: unknown) => batch.forEach((_, i) => unanswered(error as Error, inMemory(i))),
    );
  };
  const count = (method: 'incr' | 'read', key: string, callback: CounterCallback, windowMs: number, max: number) => {
    if (redis.status !== 'ready') {
      degrade(new Error(`connection ${redis.status}`));
      return fallback[method](key, callback, windowMs, max);
    }
    if (!waiting.length) setImmediate(flush);
    waiting.push({ method, key, callback, windowMs, max });
  };

  class RedisRateLimitCounters implements RateLimitStore {
    incr(key: string, callback: CounterCallback, windowMs: number, max: number): void {
      count('incr', key, callback, windowMs, max);
    }

    read(key: string, callback: CounterCallback, windowMs: number, max: number): void {
      count('read', key, callback, windowMs, max);
    }

    // Keys already end with the limit's groupId: one namespace lets the routes of a limit share it.
    child(): this {
      return this;
    }
  }

  return {
    Store: RedisRateLimitCounters,
    ready: () => settled,
    async close() {
      closing = true;
      // QUIT lets Redis finish what it is doing; it fails fast (no offline queue, commandTimeout) when it cannot.
      await redis.quit().catch(() => undefined);
      redis.disconnect();
    },
  };
}

function redisHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'unparsable REDIS_URL';
  }
}
