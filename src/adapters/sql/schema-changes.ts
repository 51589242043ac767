// The schema changes an online migration is made of, and how an engine applies them while other nodes,
// of this release and of the one before, go on serving (D22).
import type { Db } from './schema.js';

/** Columns added to a table, nullable: the release before inserts rows without them. */
export interface AddColumns {
  kind: 'add-columns';
  table: string;
  columns: readonly (readonly [name: string, type: 'text' | 'bigint'])[];
}

/** An index, built without holding off writers where the engine can. */
export interface CreateIndex {
  kind: 'create-index';
  name: string;
  table: string;
  /** The indexed columns, as SQL: `email_normalized, created_at`. */
  columns: string;
  /** A partial index's predicate, as SQL. */
  where?: string;
}

/**
 * A table the release before never reads nor writes. Its columns are SQL both engines read alike; a
 * reference to another table's key with `on delete cascade` makes every release's deletions take its
 * rows along (both engines enforce foreign keys, SQLite with the pragma each release sets).
 */
export interface CreateTable {
  kind: 'create-table';
  table: string;
  columns: readonly string[];
  /** The table a column references, which the statement must lock briefly on PostgreSQL. */
  references?: string;
}

export type SchemaStep = AddColumns | CreateIndex | CreateTable;

export interface SchemaChanges {
  /**
   * Runs `run` as the only migrator of the database (other nodes and commands wait), on one connection
   * that no request timeout cuts short. On SQLite, `run` is one transaction: all of it, or none.
   */
  exclusively<T>(run: (connection: Db) => Promise<T>): Promise<T>;
  /** Applies one step on the connection `exclusively` gave; a step already applied is left as it is. */
  apply(connection: Db, step: SchemaStep): Promise<void>;
}
