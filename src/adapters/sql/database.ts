// Opening the configured database, its engine chosen here once: embedded SQLite by default, or PostgreSQL.
import { closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError, type Database } from '../../config/config.js';
import { postgresEngine } from '../postgres/engine.js';
import { PRIVATE_FILE, PRIVATE_FOLDER } from '../private-files.js';
import { sqliteEngine } from '../sqlite/engine.js';
import type { Engine } from './engine.js';

export type { Db } from './schema.js';
export type { Engine };

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
 * The engine for DATABASE_URL: a PostgreSQL pool, or SQLite in WAL mode, its folder and file made the
 * owner's alone first (ConfigError when they cannot be). Migrations are left to the caller.
 */
export function openDatabase(database: Database): Engine {
  if (database.engine === 'postgres') return postgresEngine(database.url);
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
  return sqliteEngine(database.path);
}

/**
 * The database as it is, to look at and never change: PostgreSQL as usual (the caller only reads), SQLite
 * read-only, and undefined when its file does not exist (nothing is made: not the file, not its folder).
 */
export function openDatabaseToInspect(database: Database): Engine | undefined {
  if (database.engine === 'postgres') return postgresEngine(database.url);
  if (database.path !== ':memory:' && !existsSync(database.path)) return undefined;
  return sqliteEngine(database.path, { readonly: true });
}
