// The online migrations applied (D22): the schema changes at a start or by `portico migrate`, one migrator
// at a time, each recorded in portico_schema_migrations; the backfills in batches while nodes serve, one
// node at a time by lease; and what a database needs, read without changing it, for `portico check`.
import { setTimeout as pause } from 'node:timers/promises';
import { sql } from 'kysely';
import type { JobLeases } from '../../ports/job-leases.js';
import type { Engine } from './engine.js';
import { LEGACY_MIGRATIONS, migrateLegacy, pendingLegacy } from './legacy-migrations.js';
import { MIGRATIONS, type Backfill, type SchemaMigration } from './migrations.js';
import { PREVIOUS_RELEASE } from './previous-release.js';
import type { Db } from './schema.js';

/** A database this release cannot serve as it is: its message is one line an operator acts on. */
export class SchemaError extends Error {}

export interface Migration {
  name: string;
  compatible: boolean;
}

export interface SchemaStatus {
  /** No schema at all: a new database, which no node of any release serves yet. */
  empty: boolean;
  /** The schema changes this release still has to make, in order (the legacy ones are all compatible). */
  pending: Migration[];
  /** The backfills not finished, with the rows each has left (undefined while its schema change is pending). */
  backfills: { name: string; remaining: number | undefined }[];
  /** Migrations the database records that this release does not know: a later release's. */
  unknown: Migration[];
}

const SCHEMA_MIGRATIONS = MIGRATIONS.filter((m): m is SchemaMigration => m.kind === 'schema');
const BACKFILLS = MIGRATIONS.filter((m): m is Backfill => m.kind === 'backfill');
const KNOWN = new Set(MIGRATIONS.map((m) => m.name));

/**
 * What the database needs of this release, read without changing anything (no table is made). Online
 * migrations that an earlier build recorded in Kysely's table count as applied (they move on the next
 * migration, see adoptKyselyRecords).
 */
export async function schemaStatus(engine: Pick<Engine, 'db' | 'name'>): Promise<SchemaStatus> {
  const { db } = engine;
  const tables = new Set((await db.introspection.getTables()).map((table) => table.name));
  const legacyPending = tables.has('portico_migrations') ? await pendingLegacy(db, engine.name) : LEGACY_MIGRATIONS;
  const recorded = tables.has('portico_schema_migrations') ? await ledger(db) : [];
  if (tables.has('portico_migrations')) {
    const { rows } = await sql<{ name: string }>`select name from portico_migrations`.execute(db);
    for (const { name } of rows) if (KNOWN.has(name)) recorded.push({ name, compatible: true });
  }
  const applied = new Set(recorded.map((row) => row.name));
  const pending = [...legacyPending.map((name) => ({ name, compatible: true })), ...SCHEMA_MIGRATIONS.filter((m) => !applied.has(m.name))];
  const backfills = [];
  for (const backfill of BACKFILLS.filter((m) => !applied.has(m.name))) {
    backfills.push({ name: backfill.name, remaining: pending.length ? undefined : await backfill.remaining(db) });
  }
  return {
    empty: legacyPending[0] === LEGACY_MIGRATIONS[0],
    pending: pending.map(({ name, compatible }) => ({ name, compatible })),
    backfills,
    unknown: recorded.filter((row) => !KNOWN.has(row.name)),
  };
}

/** This release's schema migrations that the release before cannot run beside: none, for a roll that can go back. */
export const NOT_ROLLBACK_SAFE = SCHEMA_MIGRATIONS.filter((m) => m.name > PREVIOUS_RELEASE.lastMigration && !m.compatible).map((m) => m.name);

/**
 * Makes the schema changes this release needs, as the only migrator; returns the migrations a later release
 * recorded, which this release runs beside. Throws SchemaError when one of those is not compatible.
 */
export async function migrateSchema(engine: Engine, now: () => number): Promise<{ applied: string[]; unknown: Migration[] }> {
  const { schemaChanges } = engine;
  const unknown = await schemaChanges.exclusively(async (connection) => {
    await connection.schema
      .createTable('portico_schema_migrations')
      .ifNotExists()
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('compatible', 'integer', (c) => c.notNull())
      .addColumn('applied_at', 'bigint', (c) => c.notNull())
      .execute();
    await adoptKyselyRecords(connection);
    const later = (await ledger(connection)).filter((row) => !KNOWN.has(row.name));
    refuseIncompatible(later);
    return later;
  });
  const legacy = await pendingLegacy(engine.db, engine.name);
  if (legacy.length) await migrateLegacy(engine.db, engine.name);
  const applied = await schemaChanges.exclusively(async (connection) => {
    const done = new Set((await ledger(connection)).map((row) => row.name));
    const made: string[] = [];
    for (const migration of SCHEMA_MIGRATIONS.filter((m) => !done.has(m.name))) {
      for (const step of migration.steps) await schemaChanges.apply(connection, step);
      await record(connection, migration.name, 'schema', migration.compatible, now());
      made.push(migration.name);
    }
    // A new database has no row for a backfill to fill.
    if (legacy[0] === LEGACY_MIGRATIONS[0]) for (const backfill of BACKFILLS) await record(connection, backfill.name, 'backfill', true, now());
    return made;
  });
  return { applied: [...legacy, ...applied], unknown };
}

/** A later release's migrations that the release before it cannot run beside stop this one too. */
function refuseIncompatible(later: Migration[]): void {
  const incompatible = later.filter((m) => !m.compatible).map((m) => m.name);
  if (incompatible.length) {
    throw new SchemaError(
      `the database carries ${incompatible.join(', ')}, migrations of a later release that this release cannot run beside (they drop or rename): run that release, or restore a backup taken before it migrated (docs/deploy.md, "Rolling back")`,
    );
  }
}

/**
 * Online migrations that a build before the ledger recorded in Kysely's table move to the ledger, so that
 * the release before, which reads Kysely's table, starts on the database.
 */
async function adoptKyselyRecords(connection: Db): Promise<void> {
  const tables = new Set((await connection.introspection.getTables()).map((table) => table.name));
  if (!tables.has('portico_migrations')) return;
  const { rows } = await sql<{ name: string; timestamp: string }>`select name, timestamp from portico_migrations`.execute(connection);
  for (const row of rows.filter((r) => KNOWN.has(r.name))) {
    const migration = MIGRATIONS.find((m) => m.name === row.name)!;
    await record(connection, row.name, migration.kind, migration.kind === 'backfill' || migration.compatible, Date.parse(row.timestamp) || 0);
    await sql`delete from portico_migrations where name = ${row.name}`.execute(connection);
  }
}

async function ledger(db: Db): Promise<Migration[]> {
  const rows = await db.selectFrom('portico_schema_migrations').select(['name', 'compatible']).orderBy('name').execute();
  return rows.map((row) => ({ name: row.name, compatible: row.compatible === 1 }));
}

async function record(db: Db, name: string, kind: 'schema' | 'backfill', compatible: boolean, at: number): Promise<void> {
  await db
    .insertInto('portico_schema_migrations')
    .values({ name, kind, compatible: compatible ? 1 : 0, applied_at: at })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

export interface BackfillRun {
  leases: JobLeases;
  /** This process, as the lease names it. */
  holder: string;
  now: () => number;
  /** Aborted when the process stops: the run ends after its batch, and the next run goes on from there. */
  signal?: AbortSignal;
  /** How long to leave the database to requests between two batches. */
  pauseMs?: number;
  /** Rows a backfill has left, after each batch, and 0 once it has finished. */
  progress?(name: string, remaining: number): void;
  /** A backfill this run finished. */
  finished?(name: string): void;
}

// A batch takes a few milliseconds: a lease outlives many, and a node that stops mid-way hands the
// backfill on within a minute.
const LEASE_MS = 60_000;

/**
 * Runs the backfills not finished, a batch at a time, each while this process holds its lease (another
 * node's run is left to it); records each one that has no row left. Returns the names still unfinished.
 */
export async function runBackfills(engine: Pick<Engine, 'db'>, run: BackfillRun): Promise<string[]> {
  const { db } = engine;
  const done = new Set((await ledger(db)).map((row) => row.name));
  const unfinished: string[] = [];
  for (const backfill of BACKFILLS.filter((m) => !done.has(m.name))) {
    const lease = `migration:${backfill.name}`;
    let finished = false;
    // Counted once, then less each batch: nodes of the release before may add rows meanwhile, which the
    // last batches fill all the same.
    let remaining: number | undefined;
    while (await run.leases.claim(lease, run.holder, run.now(), run.now() + LEASE_MS)) {
      if (run.signal?.aborted) break;
      remaining ??= await backfill.remaining(db);
      const filled = await backfill.fillBatch(db);
      if (filled === 0) {
        await record(db, backfill.name, 'backfill', true, run.now());
        finished = true;
        break;
      }
      remaining = Math.max(0, remaining - filled);
      run.progress?.(backfill.name, remaining);
      if (run.pauseMs) await pause(run.pauseMs, undefined, { signal: run.signal }).catch(() => undefined);
    }
    if (!finished) unfinished.push(backfill.name);
    else {
      run.progress?.(backfill.name, 0);
      run.finished?.(backfill.name);
    }
  }
  return unfinished;
}

/** Every migration, the backfills run to their end: a new database for tests, or `portico migrate`. */
export async function migrateToLatest(engine: Engine, now: () => number = Date.now): Promise<void> {
  await migrateSchema(engine, now);
  await runBackfills(engine, { leases: engine.leases, holder: 'migrate', now });
}
