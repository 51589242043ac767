// Opening the configured database as a Kysely instance: embedded SQLite by default, or PostgreSQL.
import { closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import { ConfigError, type Database } from '../../config/config.js';
import { PRIVATE_FILE, PRIVATE_FOLDER } from '../private-files.js';
import { openPostgres } from './postgres.js';
import type { Db, Tables } from './schema.js';
import { registerSqliteHandle } from '../sqlite/direct.js';

export type { Db };

/**
 * mkdir -p, one level at a time: Node's recursive mkdirSync loops for ever below a folder where mkdir
 * answers ENOENT though the parent exists (/proc), where this gives up with the error.
 */
function makeFolder(path: string): void {
  try {
    mkdirSync(path, { mode: PRIVATE_FOLDER });
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EEXIST') {
      if (!statSync(path).isDirectory()) throw Object.assign(new Error(`${path} is not a folder`), { code: 'ENOTDIR', path });
      return;
    }
    const parent = dirname(path);
    if (code !== 'ENOENT' || parent === path) throw error;
    makeFolder(parent);
    mkdirSync(path, { mode: PRIVATE_FOLDER });
  }
}

/**
 * The Kysely instance for DATABASE_URL: a PostgreSQL pool, or SQLite in WAL mode, its folder and file made
 * the owner's alone first (ConfigError when they cannot be). Migrations are left to the caller.
 */
export function openDatabase(database: Database): Db {
  if (database.engine === 'postgres') return openPostgres(database.url);
  if (database.path !== ':memory:') {
    // Personal data: the folder is the owner's alone, and so is the file, created here before SQLite opens
    // it, since SQLite gives its -wal and -shm files the database file's permissions.
    try {
      makeFolder(dirname(database.path));
      closeSync(openSync(database.path, 'a', PRIVATE_FILE));
    } catch (error) {
      const { code, path } = error as NodeJS.ErrnoException;
      throw new ConfigError(`DATABASE_URL names ${database.path}, which cannot be created (${code ?? 'error'}${path ? ` at ${path}` : ''}): choose a path in a folder Portico may write`);
    }
  }
  const sqlite = new SQLite(database.path);
  // WAL lets readers (CLI, /readyz) run beside the writer. NORMAL: a commit is in the WAL before the
  // answer, so a crashed or killed process loses nothing; only a power cut can lose the last commits,
  // by which time an acknowledged inquiry's e-mail is already with the mail server (docs/design.md).
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // A deleted row's bytes are zeroed in its page rather than left for anyone who reads the file
  // (erasure, retention); FAST does it only where the page is written anyway.
  sqlite.pragma('secure_delete = FAST');
  // better-sqlite3 builds SQLite with a 16 MB page cache a connection (SQLite's own default is 2 MB):
  // the token endpoint's inserts filled it, a fifth of a node's peak memory. Pages it no longer holds
  // are a read from the kernel's page cache away; 4 MB measured the same rate (docs/performance.md, "Memory").
  sqlite.pragma('cache_size = -4000');
  const cached = withStatementCache(sqlite);
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: cached }) });
  // The direct hot path (../sqlite/direct.ts) prepares through the same cache.
  registerSqliteHandle(db, sqlite, cached.prepare);
  return db;
}

/**
 * The database as it is, to look at and never change: PostgreSQL as usual (the caller only reads), SQLite
 * read-only, and undefined when its file does not exist (nothing is made: not the file, not its folder).
 */
export function openDatabaseToInspect(database: Database): Kysely<Tables> | undefined {
  if (database.engine === 'postgres') return openPostgres(database.url);
  if (database.path !== ':memory:' && !existsSync(database.path)) return undefined;
  const sqlite = new SQLite(database.path, { readonly: true, fileMustExist: database.path !== ':memory:' });
  return new Kysely<Tables>({ dialect: new SqliteDialect({ database: sqlite }) });
}

const CACHED_STATEMENTS = 200;

/**
 * Kysely prepares every query anew; the same query shapes recur (only parameters change), so their
 * prepared statements are kept rather than prepared again for every request.
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase & { prepare(text: string): SQLite.Statement } {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      let statement = cache.get(text);
      if (!statement) {
        statement = sqlite.prepare(text);
        if (cache.size >= CACHED_STATEMENTS) cache.delete(cache.keys().next().value!);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}
