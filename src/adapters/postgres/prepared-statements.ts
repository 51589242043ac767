// Named prepared statements for the hottest PostgreSQL statements: parsed and planned once a connection
// instead of at every execution. The token endpoint's insert spent a quarter of PostgreSQL's CPU in the
// parser and planner (docs/performance.md, "PostgreSQL + Redis").
import { sql, type RawBuilder } from 'kysely';

// Anchored: any other statement is told apart at its first character.
const MARKED = /^\/\* prepared as (\w+) \*\//;

/**
 * Begins a statement that runs as the named prepared statement `name` on PostgreSQL (on SQLite it is a
 * comment). Only for a statement that (1) names its result columns, never `select *` or `returning *`:
 * PostgreSQL re-plans a prepared statement after another node's migration, and refuses one whose result
 * columns changed ("cached plan must not change result type"); and (2) runs on its own, outside a
 * transaction: a refusal by a connection pooler is retried unnamed, which is safe only when the refused
 * statement changed nothing.
 */
export const preparedAs = (name: string): RawBuilder<unknown> => sql.raw(preparedMark(name));

/** The text `preparedAs` begins a statement with. */
export const preparedMark = (name: string): string => `/* prepared as ${name} */ `;

// What PostgreSQL answers through a pooler in transaction mode that does not track prepared statements
// (PgBouncer before 1.21, or without max_prepared_statements): the next transaction of a client
// connection may run on another server connection, which lacks the statement (26000
// invalid_sql_statement_name) or already has one by that name (42P05 duplicate_prepared_statement).
const POOLER_REFUSALS = new Set(['26000', '42P05']);

interface Queryable {
  query(config: { name: string; text: string; values?: unknown[] }): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/**
 * `client.query(text, values)` that runs a statement begun by `preparedAs` as a named one. At the first
 * refusal of a pooler the statement runs again unnamed, and so does every later one of this pool.
 */
export function namedStatements(): (client: Queryable, text: string, values?: unknown[]) => Promise<unknown> {
  let naming = true;
  return (client, text, values) => {
    const name = naming ? MARKED.exec(text)?.[1] : undefined;
    if (name === undefined) return client.query(text, values);
    return client.query({ name, text, values }).catch((error: unknown) => {
      if (!POOLER_REFUSALS.has((error as { code?: string } | null)?.code ?? '')) throw error;
      naming = false;
      return client.query(text, values);
    });
  };
}
