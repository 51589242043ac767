// Opening the configured database as a Kysely instance (embedded SQLite by default).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../../config.js';
import type { Tables } from './schema.js';

export type Db = Kysely<Tables>;

export function openDatabase(database: Database): Db {
  if (database.engine !== 'sqlite') {
    throw new Error('PostgreSQL storage is not available in this build; use DATABASE_URL=sqlite:PATH');
  }
  if (database.path !== ':memory:') mkdirSync(dirname(database.path), { recursive: true });
  const sqlite = new SQLite(database.path);
  // WAL lets readers (CLI, /readyz) run beside the writer; FULL syncs each commit, so an
  // acknowledged inquiry survives a crash of the process or of the machine.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  return new Kysely<Tables>({ dialect: new SqliteDialect({ database: sqlite }) });
}
