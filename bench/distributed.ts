// The multi-node setup (PostgreSQL + Redis) against the single node (SQLite, limits in memory), in the
// same run: both with the same rate limits, set high enough never to refuse, so that every request
// takes the limit's round trip. The targets are in pairs.ts.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Limits on, never reached: the counting is measured, not the refusals. */
export const UNREACHED_LIMITS = 'contact=1000000/m,contact-client=1000000/m,mcp=1000000/m,token=1000000/m,register=1000000/m,authorize=1000000/m';

export interface DistributedStores {
  env: Record<string, string>;
  close(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh PostgreSQL database and the URL to reach it; dropped by `drop`. Throws when the server is absent. */
export async function freshPostgresDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `portico_bench_${label}_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`create database ${name}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(async (client) => void (await client.query(`drop database if exists ${name} with (force)`))) };
}

/** A fresh database and a key prefix of its own; undefined (with the reason) when either server is absent. */
export async function distributedStores(): Promise<DistributedStores | string> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch {
    redis.disconnect();
    return `no Redis answers at ${REDIS_URL}`;
  }
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  try {
    database = await freshPostgresDatabase('pair');
  } catch (error) {
    redis.disconnect();
    return `PostgreSQL at ${ADMIN_URL}: ${(error as Error).message}`;
  }
  const prefix = `portico-bench-${new URL(database.url).pathname.slice(1)}:`;
  return {
    env: { DATABASE_URL: database.url, REDIS_URL, REDIS_KEY_PREFIX: prefix, RATE_LIMITS: UNREACHED_LIMITS },
    async close() {
      await database.drop();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  };
}
