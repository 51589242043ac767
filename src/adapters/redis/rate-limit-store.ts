// Rate-limit counters in Redis, shared by every node, with per-node memory while Redis is away.
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { CounterStore } from '../../ports/rate-limiter.js';
import { memoryCounters } from '../memory-counters.js';

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

type CounterCallback = Parameters<CounterStore['incr']>[1];

export interface RedisRateLimitStore {
  /** The counters, in Redis while it answers, in this node's memory while it does not. */
  counters: CounterStore;
  /** Settles once the first connection attempt has succeeded or failed; never rejects. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

// Layout: one string per client and limit, `<prefix><client address or /64><limit name>` (or
// `<prefix>client:<client_id>:<limit name>` for an OAuth client) -> request count, expiring (PEXPIRE)
// when its window ends; e.g. `portico:rl:203.0.113.7token` = "4", PTTL 41200.
export const DEFAULT_KEY_PREFIX = 'portico:rl:';

// The counts of one turn of the event loop in one script call: KEYS are the counters, ARGV[i] the window
// of KEYS[i] in ms. Each count is @fastify/rate-limit's store/RedisStore.js's, atomic as a script is;
// unlike it, a counter found without an expiry gets one (otherwise its client would stay limited for
// good). Returns a flat list: each counter's count, then its time left in ms.
const COUNT = `
local answers = {}
for i, key in ipairs(KEYS) do
  local window = tonumber(ARGV[i])
  local current = redis.call('INCR', key)
  local ttl = window
  if current > 1 then ttl = redis.call('PTTL', key) end
  if current == 1 or ttl < 0 then
    ttl = window
    redis.call('PEXPIRE', key, ttl)
  end
  answers[2 * i - 1] = current
  answers[2 * i] = ttl
end
return answers`;

type ScriptedRedis = Redis & { porticoRateLimitCount(keys: number, ...keysThenWindows: (string | number)[]): Promise<number[]> };

/**
 * Rate-limit counters in Redis, counted in this node's memory whenever Redis does not answer
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
  // No numberOfKeys: each call says how many counters it carries.
  redis.defineCommand('porticoRateLimitCount', { lua: COUNT });

  // Never the URL: it may carry the password.
  const where = { redis: redisHost(options.url) };
  const fallback = memoryCounters();
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

  // No answer in time, or an error: drop the connection when it was a timeout, so later requests go to
  // memory without waiting, and the reconnection's 'ready' tells us when Redis is back. Once only: the
  // requests in flight on it fail together.
  const unanswered = (error: Error) => {
    degrade(error);
    if (error.name !== 'ReplyError' && redis.status === 'ready' && !dropping) {
      dropping = true;
      redis.disconnect(true);
    }
  };

  // The counts asked for in one turn of the event loop go to Redis as one script call: one command for
  // all of them, where each request would otherwise cost Redis a command of its own (the token
  // endpoint's requests arrive several a turn under load; docs/performance.md, "PostgreSQL + Redis").
  let waiting: { key: string; callback: CounterCallback; windowMs: number; max: number }[] = [];
  const flush = () => {
    const batch = waiting;
    waiting = [];
    const keys = batch.map(({ key }) => keyPrefix + key);
    const windows = batch.map(({ windowMs }) => windowMs);
    (redis as ScriptedRedis).porticoRateLimitCount(batch.length, ...keys, ...windows).then(
      (answers) => {
        recover();
        batch.forEach(({ callback }, i) => callback(null, { current: answers[2 * i]!, ttl: answers[2 * i + 1]! }));
      },
      (error: unknown) => {
        unanswered(error as Error);
        for (const { key, callback, windowMs, max } of batch) fallback.incr(key, callback, windowMs, max);
      },
    );
  };
  const counters: CounterStore = {
    incr(key, callback, windowMs, max) {
      if (redis.status !== 'ready') {
        degrade(new Error(`connection ${redis.status}`));
        return fallback.incr(key, callback, windowMs, max);
      }
      if (!waiting.length) setImmediate(flush);
      waiting.push({ key, callback, windowMs, max });
    },
  };

  return {
    counters,
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
