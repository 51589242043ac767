// The embedded engine: a better-sqlite3 connection in WAL mode, Kysely over it for the portable
// statements, and the direct path (direct.ts) for the hot ones.
import SQLite from 'better-sqlite3';
import { Kysely } from 'kysely';
import type { Engine } from '../sql/engine.js';
import { sqlJobLeases } from '../sql/job-leases.js';
import type { Tables } from '../sql/schema.js';
import { checkpointInBackground } from './checkpoints.js';
import { directSqlite } from './direct.js';
import { SharedConnection } from './lock-waiting-driver.js';
import { sqliteInquiryStore } from './inquiry-store.js';
import { sqliteOAuthStore } from './oauth-store.js';
import { sqliteSchemaChanges } from './schema-changes.js';

export interface SqliteOptions {
  /** Opened to read only: nothing is written, not even the journal mode. */
  readonly?: boolean;
  /** How often the checkpoint thread runs beside a serving node (checkpoints.ts). */
  checkpointIntervalMs?: number;
}

/** Opens the database file at `path` (which the caller made the owner's alone), or `:memory:`. */
export function sqliteEngine(path: string, { readonly = false, checkpointIntervalMs }: SqliteOptions = {}): Engine {
  const sqlite = new SQLite(path, readonly ? { readonly, fileMustExist: path !== ':memory:' } : {});
  if (!readonly) {
    // WAL lets readers (CLI, /readyz) run beside the writer. NORMAL: a commit is in the WAL before the
    // answer, so a crashed or killed process loses nothing; only a power cut can lose the last commits,
    // by which time an acknowledged inquiry's e-mail is already with the mail server (docs/design.md).
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
  }
  // No statement waits in SQLite's busy handler, which sleeps in the event loop: a locked database is asked
  // again on a timer (lock-waiting-driver.ts, direct.ts).
  sqlite.pragma('busy_timeout = 0');
  sqlite.pragma('foreign_keys = ON');
  // A deleted row's bytes are zeroed in its page rather than left for anyone who reads the file
  // (erasure, retention); FAST does it only where the page is written anyway.
  sqlite.pragma('secure_delete = FAST');
  // better-sqlite3 builds SQLite with a 16 MB page cache a connection (SQLite's own default is 2 MB):
  // the token endpoint's inserts filled it, a fifth of a node's peak memory. Pages it no longer holds
  // are a read from the kernel's page cache away; 4 MB measured the same rate (docs/performance.md, "Memory").
  sqlite.pragma('cache_size = -4000');
  const connection = new SharedConnection(sqlite, statementCache(sqlite));
  const db = new Kysely<Tables>({ dialect: connection.dialect() });
  const direct = directSqlite(connection);
  return {
    name: 'sqlite',
    db,
    inquiries: sqliteInquiryStore(db, direct),
    oauth: sqliteOAuthStore(db, direct),
    leases: sqlJobLeases(db),
    schemaChanges: sqliteSchemaChanges(db),
    // A node beside another process that holds the write lock (a purge, a backup) is not ready (D23).
    writable: () => connection.writable(WRITABLE_WITHIN_MS),
    serveInBackground: (log) => checkpointInBackground(sqlite, log, checkpointIntervalMs),
    destroy: () => db.destroy(),
  };
}

// A balancer gives /readyz a few seconds; a lock held longer than this is not a commit of another process's.
const WRITABLE_WITHIN_MS = 1_000;

const CACHED_STATEMENTS = 200;

/**
 * Kysely prepares every query anew; the same query shapes recur (only parameters change), so their
 * prepared statements are kept rather than prepared again for every request.
 */
function statementCache(sqlite: SQLite.Database): (text: string) => SQLite.Statement {
  const cache = new Map<string, SQLite.Statement>();
  return (text) => {
    let statement = cache.get(text);
    if (!statement) {
      statement = sqlite.prepare(text);
      if (cache.size >= CACHED_STATEMENTS) cache.delete(cache.keys().next().value!);
      cache.set(text, statement);
    }
    return statement;
  };
}
