// Kysely over the node's one better-sqlite3 connection, without SQLite's busy handler (D23). The handler
// sleeps in the thread that runs the statement, the event loop, by steps growing to 100 ms for as long as
// another process (a purge, an erasure, a backup) holds the write lock: every request of the node waited
// with it. Here the connection never waits (busy_timeout 0): a statement that finds the lock taken is
// asked again on a timer, and after LOCK_WAIT_MS from when it was asked it gives up with
// store_unavailable (503, Retry-After).
//
// Nothing is held while a statement waits: Kysely's own SQLite driver hands its one connection to one
// query at a time, so a read (a Bearer token's lookup) queued behind a write that waits for the lock,
// and a write queued behind it waited its own five seconds after the first had given up. The one thing
// that must wait is a transaction Kysely keeps open across awaits: any statement run meanwhile would
// join it. Transactions begin IMMEDIATE, taking the write lock first, so no statement inside one meets it.
// Savepoints (Kysely's controlled transactions) are not offered: nothing here uses them.
import { setTimeout as pause } from 'node:timers/promises';
import type SQLite from 'better-sqlite3';
import { CompiledQuery, SelectQueryNode, SqliteDialect, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { AppError } from '../../errors.js';

/** How long a statement waits for another process's lock before it is answered 503, as busy_timeout waited. */
export const LOCK_WAIT_MS = 5_000;
const RETRY_MS = 2;
const RETRY_AFTER_SECONDS = '5';

/** SQLite's answer when another connection holds the lock the statement needs (SQLITE_BUSY and its extended codes). */
export const isLocked = (error: unknown) => (error as { code?: unknown } | null)?.code?.toString().startsWith('SQLITE_BUSY') === true;

/** The locked database as the error contract says it (D23): 503 store_unavailable with Retry-After, the driver's error as the cause. */
export const lockedOut = (cause: unknown) =>
  Object.assign(new AppError('store_unavailable', 'the database is locked by another process; retry shortly', { 'Retry-After': RETRY_AFTER_SECONDS }), { cause });

/** What Kysely and the group commit (direct.ts) share of the connection: its statements and its one open transaction. */
export class SharedConnection {
  /** The session whose transaction is open, and the end of it that others wait for. */
  private open: { owner: Session; ended: Promise<void>; end(): void } | undefined;

  constructor(
    readonly sqlite: SQLite.Database,
    /** Prepares through the statement cache. */
    readonly prepare: (text: string) => SQLite.Statement,
  ) {}

  /** Kysely's dialect over this connection. */
  dialect(): SqliteDialect {
    return new LockWaitingDialect(this);
  }

  /** Resolves once no transaction of Kysely's is open; undefined when none is now. */
  whenFree(): Promise<void> | undefined {
    return this.open && this.waitFor(undefined);
  }

  /** Runs `query` for `session`: after any transaction of another session, asked again while the database is locked. */
  execute<R>(session: Session, query: CompiledQuery): Promise<QueryResult<R>> {
    return this.whileLocked(session, () => this.run<R>(query));
  }

  /** Opens `session`'s transaction once no other is open; the statement and the note of it in one turn. */
  begin(session: Session): Promise<void> {
    return this.whileLocked(undefined, () => {
      this.run(BEGIN);
      let end!: () => void;
      const ended = new Promise<void>((resolve) => (end = resolve));
      this.open = { owner: session, ended, end };
    });
  }

  /**
   * Resolves once the write lock could be taken (taken and given back at once), asked for again for
   * `withinMs`; lockedOut after. A transaction of Kysely's that holds it says the database takes writes.
   */
  async writable(withinMs: number): Promise<void> {
    if (this.open) return;
    await this.whileLocked(undefined, () => void this.sqlite.exec('begin immediate; rollback'), withinMs);
  }

  async end(session: Session, statement: CompiledQuery): Promise<void> {
    try {
      await this.execute(session, statement);
    } finally {
      // A COMMIT that failed leaves the transaction open for the ROLLBACK Kysely sends next.
      if (!this.sqlite.inTransaction && this.open?.owner === session) {
        this.open.end();
        this.open = undefined;
      }
    }
  }

  async *stream<R>(session: Session, query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('only selects are streamed on SQLite');
    if (this.open && this.open.owner !== session) await this.waitFor(session);
    for (const row of this.prepare(query.sql).iterate(query.parameters)) yield { rows: [row as R] };
  }

  /** `statement`, run once no transaction but `session`'s is open, and again on a timer while another process holds the lock. */
  private async whileLocked<T>(session: Session | undefined, statement: () => T, withinMs = LOCK_WAIT_MS): Promise<T> {
    const asked = performance.now();
    for (;;) {
      if (this.open && this.open.owner !== session) await this.waitFor(session);
      try {
        return statement();
      } catch (error) {
        // A statement that met the lock did nothing: asking again is safe.
        if (!isLocked(error)) throw error;
        if (performance.now() - asked >= withinMs) throw lockedOut(error);
        await pause(RETRY_MS);
      }
    }
  }

  private async waitFor(session: Session | undefined): Promise<void> {
    while (this.open && this.open.owner !== session) await this.open.ended;
  }

  private run<R>({ sql, parameters }: CompiledQuery): QueryResult<R> {
    const statement = this.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }
}

const BEGIN = CompiledQuery.raw('begin immediate');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

/** One Kysely connection hand-off: a query, or a transaction's statements. */
class Session implements DatabaseConnection {
  constructor(private readonly shared: SharedConnection) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.shared.execute<R>(this, query);
  }

  streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    return this.shared.stream<R>(this, query);
  }
}

class LockWaitingDialect extends SqliteDialect {
  constructor(private readonly shared: SharedConnection) {
    super({ database: shared.sqlite });
  }

  override createDriver(): Driver {
    return new LockWaitingDriver(this.shared);
  }
}

class LockWaitingDriver implements Driver {
  constructor(private readonly shared: SharedConnection) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Session(this.shared);
  }

  async beginTransaction(session: Session): Promise<void> {
    await this.shared.begin(session);
  }

  async commitTransaction(session: Session): Promise<void> {
    await this.shared.end(session, COMMIT);
  }

  async rollbackTransaction(session: Session): Promise<void> {
    await this.shared.end(session, ROLLBACK);
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    this.shared.sqlite.close();
  }
}
