// The hot statements on SQLite, run on better-sqlite3 itself: Kysely's builder, compiler and
// connection hand-off cost more than the statement (docs/performance.md, "SQLite's hot path").
// Both stores keep their Kysely statements for PostgreSQL and for everything off the hot path.
import type SQLite from 'better-sqlite3';
import { isLocked, LOCK_WAIT_MS, lockedOut, type SharedConnection } from './lock-waiting-driver.js';

export type Handle = SQLite.Database;

export interface DirectSqlite {
  /** A statement from the database's statement cache, prepared on first use (migrations ran by then). */
  statement(text: string): SQLite.Statement;
  /**
   * Group commit: writes queued in one turn of the event loop run in one transaction, each settling
   * with its own result or error once that transaction is committed. A write of several statements
   * wraps them in `atomically`.
   */
  write<T>(run: () => T): Promise<T>;
  /** Runs `run` in a savepoint inside a write: all of its statements, or none. */
  atomically<T>(run: () => T): T;
}

interface Queued {
  run(): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** When it was queued: a write waits for another process's lock LOCK_WAIT_MS at most. */
  queuedAt: number;
}

// Another process (a command such as `portico inquiries purge`) may hold the write lock. SQLite's own
// busy handler would sleep in this thread, the event loop with it, by steps that grow to 100 ms; the
// connection has none (busy_timeout 0), and the group commit asks again a millisecond later, so that
// only the writes wait; after LOCK_WAIT_MS they are answered store_unavailable.
const BUSY_RETRY_MS = 1;

// A commit appends every page it touched to the WAL: many small writes in one commit touch the same
// few pages, so a row costs a fraction of what it costs committed alone.
const MAX_WRITES_PER_COMMIT = 500;
// Under concurrent load (the last commit carried more than one write), commits come at most this
// often and the writes of the interval share one, whose cost hardly depends on how many it carries
// (docs/performance.md, "SQLite's hot path"). One writer at a time commits at once.
const MIN_COMMIT_INTERVAL_MS = 1;

/** The direct path on the connection Kysely shares, preparing through its statement cache. */
export function directSqlite(connection: SharedConnection): DirectSqlite {
  const { sqlite, prepare } = connection;
  let queue: Queued[] = [];
  let lastCommit = -Infinity;
  let lastBatchSize = 0;

  // One wrapper, made once: better-sqlite3 runs it between BEGIN and COMMIT (ROLLBACK when it throws).
  const commit = sqlite.transaction((batch: Queued[], results: { ok: boolean; value: unknown }[]) => {
    for (const write of batch) {
      try {
        results.push({ ok: true, value: write.run() });
      } catch (error) {
        // A constraint failure undoes its own statement only; an error that ended the transaction
        // (disk full, I/O) undid the whole batch, so it fails the whole batch.
        if (!sqlite.inTransaction) throw error;
        results.push({ ok: false, value: error });
      }
    }
  });

  /** BEGIN IMMEDIATE, at once: the SQLITE_BUSY error when another process holds the lock. */
  const tryCommit = (slice: Queued[], results: { ok: boolean; value: unknown }[]): Error | undefined => {
    try {
      commit.immediate(slice, results);
      return undefined;
    } catch (error) {
      if (isLocked(error) && results.length === 0) return error as Error;
      throw error;
    }
  };

  const flush = () => {
    // Kysely runs a transaction's statements across awaits on this same connection: a commit run in
    // between would join it (and see, or be rolled back with, its uncommitted rows). The queue waits.
    const free = connection.whenFree();
    if (free) return void free.then(flush);
    const batch = queue;
    queue = [];
    lastCommit = performance.now();
    lastBatchSize = batch.length;
    for (let i = 0; i < batch.length; i += MAX_WRITES_PER_COMMIT) {
      const slice = batch.slice(i, i + MAX_WRITES_PER_COMMIT);
      const results: { ok: boolean; value: unknown }[] = [];
      try {
        // BEGIN IMMEDIATE: the write lock is taken once for the batch, so a busy database delays or
        // fails the whole batch, never one write after another.
        const busy = tryCommit(slice, results);
        if (busy) {
          const now = performance.now();
          const waited = slice.filter((write) => now - write.queuedAt >= LOCK_WAIT_MS);
          for (const write of waited) write.reject(lockedOut(busy));
          const waiting = [...slice.filter((write) => !waited.includes(write)), ...batch.slice(i + MAX_WRITES_PER_COMMIT)];
          if (waiting.length) {
            if (!queue.length) setTimeout(flush, BUSY_RETRY_MS);
            queue = [...waiting, ...queue];
          }
          return;
        }
      } catch (error) {
        for (const write of slice) write.reject(error);
        continue;
      }
      slice.forEach((write, j) => (results[j]!.ok ? write.resolve(results[j]!.value) : write.reject(results[j]!.value)));
    }
  };

  return {
    statement: prepare,
    atomically: (run) => sqlite.transaction(run)(),
    write<T>(run: () => T) {
      return new Promise<T>((resolve, reject) => {
        if (!queue.length) {
          const wait = lastBatchSize > 1 ? lastCommit + MIN_COMMIT_INTERVAL_MS - performance.now() : 0;
          if (wait > 0) setTimeout(flush, wait);
          else setImmediate(flush);
        }
        queue.push({ run, resolve: resolve, reject, queuedAt: performance.now() });
      });
    },
  };
}
