// Schema changes on PostgreSQL while nodes serve (D22), as GitLab and strong_migrations make them: a
// change that takes a table's lock runs in a short transaction of its own that gives up after
// LOCK_TIMEOUT and is tried again, so the requests queued behind it wait no longer than that; an index
// is built CONCURRENTLY, holding off no writer.
import { setTimeout as pause } from 'node:timers/promises';
import { sql, type RawBuilder } from 'kysely';
import type { SchemaChanges, SchemaStep } from '../sql/schema-changes.js';
import type { Db } from '../sql/schema.js';
import { openPostgres } from './pool.js';

// ALTER TABLE waits for the table's ACCESS EXCLUSIVE lock, and every statement on the table waits behind
// it in the lock queue: a second at most, then it lets them through and asks again later.
const LOCK_TIMEOUT = '1s';
const LOCK_ATTEMPTS = 20;
const PAUSES_MS = [500, 1_000, 2_000, 4_000, 5_000];
// 55P03 lock_not_available: lock_timeout ran out (PostgreSQL docs, appendix A).
const LOCK_NOT_AVAILABLE = '55P03';
// The key of the advisory lock held by the one migrator at a time; Portico's own, as DUPLICATE_LOCK_CLASS is.
const MIGRATION_LOCK = 0x506f7275;
const LOCK_POLL_MS = 250;

/** SchemaChanges on the database at `url`, each run on a connection of its own that no request timeout cuts short. */
export function postgresSchemaChanges(url: string): SchemaChanges {
  return {
    async exclusively(run) {
      const db = openPostgres(url, { size: 1, timed: false });
      try {
        return await db.connection().execute(async (connection) => {
          // A session lock: it outlives the short transactions below, and ends with the connection. Asked for
          // again and again rather than waited for: a session waiting in pg_advisory_lock holds a snapshot,
          // which the holder's CREATE INDEX CONCURRENTLY waits for, and the two would deadlock.
          while (!(await sql<{ taken: boolean }>`select pg_try_advisory_lock(${MIGRATION_LOCK}) as taken`.execute(connection)).rows[0]?.taken) {
            await pause(LOCK_POLL_MS);
          }
          try {
            return await run(connection);
          } finally {
            await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(connection);
          }
        });
      } finally {
        await db.destroy();
      }
    },
    apply(connection, step) {
      if (step.kind === 'create-index') return createIndex(connection, step);
      if (step.kind === 'add-columns') {
        const columns = sql.join(step.columns.map(([name, type]) => sql`add column if not exists ${sql.id(name)} ${sql.raw(type)}`));
        return briefly(connection, step.table, sql`alter table ${sql.id(step.table)} ${columns}`);
      }
      // A foreign key locks the table it references (SHARE ROW EXCLUSIVE) as long as ALTER TABLE does.
      const statement = sql`create table if not exists ${sql.id(step.table)} (${sql.raw(step.columns.join(', '))})`;
      return briefly(connection, step.references ?? step.table, statement);
    },
  };
}

/** Runs a statement that takes `table`'s lock in a transaction of its own, giving up after LOCK_TIMEOUT and asking again. */
async function briefly(connection: Db, table: string, statement: RawBuilder<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await sql`begin`.execute(connection);
    try {
      await sql`set local lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(connection);
      await statement.execute(connection);
      await sql`commit`.execute(connection);
      return;
    } catch (error) {
      await sql`rollback`.execute(connection);
      if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
      if (attempt === LOCK_ATTEMPTS) {
        throw new Error(`the lock on ${table} was not had in ${LOCK_ATTEMPTS} tries of ${LOCK_TIMEOUT}: a long transaction holds it (pg_stat_activity names it); start again once it has ended`, {
          cause: error,
        });
      }
      await pause(PAUSES_MS[Math.min(attempt, PAUSES_MS.length) - 1]);
    }
  }
}

async function createIndex(connection: Db, step: Extract<SchemaStep, { kind: 'create-index' }>): Promise<void> {
  // A CONCURRENTLY build that was stopped half-way leaves an INVALID index that `if not exists` would keep.
  const { rows } = await sql<{ valid: boolean }>`
    select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
    where c.relname = ${step.name} and c.relnamespace = current_schema()::regnamespace`.execute(connection);
  if (rows[0]?.valid) return;
  if (rows[0]) await sql`drop index concurrently if exists ${sql.id(step.name)}`.execute(connection);
  const where = step.where ? sql` where ${sql.raw(step.where)}` : sql``;
  await sql`create index concurrently if not exists ${sql.id(step.name)} on ${sql.id(step.table)} (${sql.raw(step.columns)})${where}`.execute(connection);
}
