// Schema changes on SQLite: one node, so they run in one transaction at its start, before it serves; the
// slow work (backfills) runs after, in batches. A second process on the same file waits for the lock.
import { sql } from 'kysely';
import type { SchemaChanges } from '../sql/schema-changes.js';
import type { Db } from '../sql/schema.js';

export function sqliteSchemaChanges(db: Db): SchemaChanges {
  return {
    exclusively: (run) =>
      db.connection().execute(async (connection) => {
        // IMMEDIATE: the write lock first, so that two migrators never both read the ledger as it was.
        await sql`begin immediate`.execute(connection);
        try {
          const result = await run(connection);
          await sql`commit`.execute(connection);
          return result;
        } catch (error) {
          await sql`rollback`.execute(connection);
          throw error;
        }
      }),
    async apply(connection, step) {
      if (step.kind === 'create-index') {
        const where = step.where ? sql` where ${sql.raw(step.where)}` : sql``;
        await sql`create index if not exists ${sql.id(step.name)} on ${sql.id(step.table)} (${sql.raw(step.columns)})${where}`.execute(connection);
        return;
      }
      if (step.kind === 'create-table') {
        await sql`create table if not exists ${sql.id(step.table)} (${sql.raw(step.columns.join(', '))})`.execute(connection);
        return;
      }
      // SQLite has no ADD COLUMN IF NOT EXISTS.
      const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${step.table})`.execute(connection);
      const present = new Set(rows.map((row) => row.name));
      for (const [name, type] of step.columns) {
        if (!present.has(name)) await sql`alter table ${sql.id(step.table)} add column ${sql.id(name)} ${sql.raw(type)}`.execute(connection);
      }
    },
  };
}
