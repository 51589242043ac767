// PostgreSQL through a bounded `pg` pool, for several nodes sharing one database (DESIGN section 5).
import { createRequire } from 'node:module';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { AppError } from '../../errors.js';
import { namedStatements } from './prepared-statements.js';
import type { Tables } from '../sql/schema.js';

/** Connections per node; with N nodes the server needs N x this (PostgreSQL's default max is 100). */
export const POOL_SIZE = 10;
const CONNECT_TIMEOUT_MS = 3_000;
// No request waits on the database for longer than this; the answer is then 503 with Retry-After.
const QUERY_TIMEOUT_MS = 10_000;
const RETRY_AFTER_SECONDS = '5';

// int8 (oid 20) arrives as a string by default; every bigint column here is a millisecond time,
// well inside Number's exact range.
const INT8 = 20;

// SQLSTATE classes that mean the server is gone or refusing, not that the query was wrong:
// 08 connection exception, 57P0x operator intervention (shutdown, crash, starting up), 53300 too
// many connections (PostgreSQL docs, appendix A).
const UNAVAILABLE_STATES = /^(08|57P0[1-4]|53300$)/;
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);

/** A driver error that says the database cannot be reached now (as opposed to a bad query). */
export function isUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (code && (UNAVAILABLE_NODE_CODES.has(code) || UNAVAILABLE_STATES.test(code))) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error/i.test(message ?? '');
}

// 22021: a NUL character, which PostgreSQL text cannot hold; the edges refuse them, this catches the rest.
const NUL_IN_TEXT = '22021';

const unavailable = (error: unknown) => {
  if ((error as { code?: string } | null)?.code === NUL_IN_TEXT) return new AppError('invalid_request', 'text must not contain NUL characters');
  if (!isUnavailable(error)) return error;
  // The driver's error stays as the cause (its code for the start-up line), never in the HTTP answer.
  return Object.assign(new AppError('store_unavailable', 'the database does not answer; retry shortly', { 'Retry-After': RETRY_AFTER_SECONDS }), { cause: error });
};

export interface PoolOptions {
  /** Connections held at most; POOL_SIZE for a node's requests. */
  size?: number;
  /** Whether a statement is cut short after QUERY_TIMEOUT_MS, as a request's are; migrations run untimed. */
  timed?: boolean;
}

/**
 * Kysely over a bounded `pg` pool, loaded only here. A database that cannot be reached answers AppError
 * store_unavailable (503 with Retry-After), and a NUL in text invalid_request.
 */
export function openPostgres(url: string, { size = POOL_SIZE, timed = true }: PoolOptions = {}): Kysely<Tables> {
  // Loaded only here: a SQLite node never pays pg's memory (about 7 MB resident).
  const { Pool, types: pgTypes } = createRequire(import.meta.url)('pg') as typeof pg;
  const types = { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === INT8 ? Number : (pgTypes.getTypeParser as (oid: number, format?: 'text' | 'binary') => unknown)(oid, format)) };
  const pool = new Pool({
    connectionString: url,
    max: size,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    ...(timed && { query_timeout: QUERY_TIMEOUT_MS, statement_timeout: QUERY_TIMEOUT_MS }),
    types,
  });
  // An idle connection the server closed (a restart) errors here; the pool drops it and opens a new
  // one on demand. Without a listener the process would exit.
  pool.on('error', () => {});
  return new Kysely<Tables>({ dialect: new PostgresDialect({ pool: guarded(pool) }) });
}

/** The pool as Kysely sees it, with outage errors turned into AppError store_unavailable (503). */
function guarded(pool: pg.Pool): pg.Pool {
  const run = namedStatements();
  const clients = new WeakMap<pg.PoolClient, pg.PoolClient>();
  const wrap = (client: pg.PoolClient): pg.PoolClient => {
    let proxy = clients.get(client);
    if (!proxy) {
      // A connection the server ends while it is checked out (a restart mid-query) emits 'error'; the
      // query in flight rejects on its own, and an unheard 'error' would end the process.
      client.on('error', () => {});
      proxy = new Proxy(client, {
        get(target, property, receiver) {
          if (property !== 'query') {
            const value: unknown = Reflect.get(target, property, receiver);
            return typeof value === 'function' ? (value.bind(target) as unknown) : value;
          }
          return (...args: unknown[]) => {
            // Kysely passes (text, values); a cursor is an object of its own.
            const [text, values] = args as [unknown, unknown[] | undefined];
            const query = typeof text === 'string' ? run(target, text, values) : (target.query as (...a: unknown[]) => Promise<unknown>)(...args);
            return query.catch((error: unknown) => Promise.reject(unavailable(error)));
          };
        },
      });
      clients.set(client, proxy);
    }
    return proxy;
  };
  return new Proxy(pool, {
    get(target, property, receiver) {
      if (property === 'connect') {
        return () => target.connect().then(wrap, (error: unknown) => Promise.reject(unavailable(error)));
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value.bind(target) as unknown) : value;
    },
  });
}
