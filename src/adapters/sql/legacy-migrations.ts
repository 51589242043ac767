// The first migrations, 0001-0006, run by Kysely's Migrator and recorded in its table, portico_migrations,
// as every release up to the one before the online migrations (./migrations.ts) did: that release reads
// the table and refuses a database that records a migration it does not know, so nothing else is ever
// recorded there. Never edit one: they have shipped.
import { Kysely, Migrator, sql, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Db } from './schema.js';

/** The migrations Kysely's Migrator runs and records; the engine's name picks what 0003 does. */
const legacyMigrations = (engine: 'sqlite' | 'postgres'): Record<string, Migration> => ({
  '0001_inquiries': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('inquiries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('locale', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text')
        .addColumn('remote_ip', 'text', (c) => c.notNull())
        .addColumn('idempotency_key', 'text', (c) => c.unique())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('attempted_at', 'bigint')
        .addColumn('last_error', 'text')
        .addColumn('message_id', 'text')
        .addColumn('sent_at', 'bigint')
        .execute();
      await db.schema.createIndex('inquiries_created_at').on('inquiries').column('created_at').execute();
      await db.schema.createIndex('inquiries_status').on('inquiries').columns(['status', 'created_at']).execute();
    },
  },
  '0002_oauth': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('oauth_clients')
        .addColumn('client_id', 'text', (c) => c.primaryKey())
        .addColumn('secret_hash', 'text')
        .addColumn('client_name', 'text')
        .addColumn('redirect_uris', 'text', (c) => c.notNull())
        .addColumn('grant_types', 'text', (c) => c.notNull())
        .addColumn('token_endpoint_auth_method', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('application_type', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .execute();
      await db.schema
        .createTable('oauth_consents')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('browser_hash', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('redirect_uri', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('resource', 'text', (c) => c.notNull())
        .addColumn('code_challenge', 'text', (c) => c.notNull())
        .addColumn('state', 'text')
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('consumed_at', 'bigint')
        .execute();
      await db.schema
        .createTable('oauth_grants')
        .addColumn('grant_id', 'text', (c) => c.primaryKey())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('resource', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('revoked_at', 'bigint')
        .execute();
      await db.schema
        .createTable('oauth_codes')
        .addColumn('code_hash', 'text', (c) => c.primaryKey())
        .addColumn('grant_id', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('redirect_uri', 'text', (c) => c.notNull())
        .addColumn('code_challenge', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('resource', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('consumed_at', 'bigint')
        .execute();
      await db.schema
        .createTable('oauth_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('grant_id', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('resource', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('previous_hash', 'text')
        .addColumn('used_at', 'bigint')
        .execute();
      await db.schema.createIndex('oauth_tokens_grant').on('oauth_tokens').column('grant_id').execute();
      // Partial: only refresh tokens that replaced another have one; access tokens skip the index.
      await db.schema.createIndex('oauth_tokens_previous').on('oauth_tokens').column('previous_hash').where('previous_hash', 'is not', null).execute();
      await db.schema.createIndex('oauth_tokens_expires').on('oauth_tokens').column('expires_at').execute();
      await db.schema.createIndex('oauth_grants_client').on('oauth_grants').column('client_id').execute();
      await db.schema.createIndex('oauth_codes_expires').on('oauth_codes').column('expires_at').execute();
      await db.schema.createIndex('oauth_consents_expires').on('oauth_consents').column('expires_at').execute();
    },
  },
  // Each inquiry is inserted and then marked sent: with 0001's indexes that touched five b-trees,
  // two of them for nothing on the contact path (docs/performance.md, "Inquiry indexes"):
  // - the (status, created_at) index moved every row from pending to sent, and only the stalled
  //   pending ones are ever looked up by status: it now holds the pending rows alone;
  // - on SQLite the unique idempotency_key index held an entry for every NULL key (most requests
  //   send none), all on its first leaf: it now holds the keys that were sent. PostgreSQL keeps its
  //   unique constraint, so nodes of the previous version keep inserting during a rolling upgrade
  //   (their ON CONFLICT names no index predicate, and PostgreSQL would find no arbiter index).
  '0003_inquiries_lighter_indexes': {
    async up(db: Kysely<unknown>) {
      if (engine === 'sqlite') await rebuildInquiriesWithPartialKeyIndex(db);
      await sql`drop index if exists inquiries_status`.execute(db);
      await sql`create index if not exists inquiries_pending on inquiries (created_at) where status = 'pending'`.execute(db);
    },
  },
  // Delivery as a durable job (D15): when a failed inquiry is tried again, the webhook channel's outcome
  // beside the e-mail's message_id, and when its submitter was sent an acknowledgement. Both indexes
  // are partial: they hold only inquiries waiting for a retry, and acknowledged ones, so the contact
  // path's insert touches neither.
  '0004_delivery': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('inquiries').addColumn('webhook_at', 'bigint').execute();
      await db.schema.alterTable('inquiries').addColumn('next_attempt_at', 'bigint').execute();
      await db.schema.alterTable('inquiries').addColumn('acknowledged_at', 'bigint').execute();
      await sql`create index inquiries_retry_due on inquiries (next_attempt_at) where next_attempt_at is not null`.execute(db);
      await sql`create index inquiries_acknowledged on inquiries (email, acknowledged_at) where acknowledged_at is not null`.execute(db);
    },
  },
  // Retention (INQUIRY_RETENTION, SPAM_RETENTION): spam by age from a partial index the contact path's
  // inserts never touch, and leases so that one node at a time runs a periodic job.
  '0005_retention': {
    async up(db: Kysely<unknown>) {
      await sql`create index inquiries_spam on inquiries (created_at) where status = 'spam'`.execute(db);
      await db.schema
        .createTable('portico_job_leases')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  // `inquiries list --status failed` and `resend --failed` read the few failed inquiries from an index of
  // their own, instead of walking every inquiry by date; an inquiry enters it only when it fails.
  '0006_failed_inquiries': {
    async up(db: Kysely<unknown>) {
      await sql`create index inquiries_failed on inquiries (created_at) where status = 'failed'`.execute(db);
    },
  },
});

/**
 * SQLite cannot drop a column's UNIQUE constraint: the table is rebuilt (the procedure of
 * https://www.sqlite.org/lang_altertable.html section 7), in one transaction, keeping every row.
 */
async function rebuildInquiriesWithPartialKeyIndex(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.schema
      .createTable('inquiries_rebuilt')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('channel', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('locale', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text')
      .addColumn('remote_ip', 'text', (c) => c.notNull())
      .addColumn('idempotency_key', 'text')
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('attempted_at', 'bigint')
      .addColumn('last_error', 'text')
      .addColumn('message_id', 'text')
      .addColumn('sent_at', 'bigint')
      .execute();
    const columns = sql.raw(INQUIRY_COLUMNS.join(', '));
    await sql`insert into inquiries_rebuilt (${columns}) select ${columns} from inquiries`.execute(trx);
    await sql`drop table inquiries`.execute(trx);
    await sql`alter table inquiries_rebuilt rename to inquiries`.execute(trx);
    await sql`create index inquiries_created_at on inquiries (created_at)`.execute(trx);
    await sql`create unique index inquiries_idempotency_key on inquiries (idempotency_key) where idempotency_key is not null`.execute(trx);
  });
}

const INQUIRY_COLUMNS = [
  'id',
  'created_at',
  'status',
  'channel',
  'name',
  'email',
  'message',
  'locale',
  'client_id',
  'remote_ip',
  'idempotency_key',
  'fingerprint',
  'attempts',
  'attempted_at',
  'last_error',
  'message_id',
  'sent_at',
];

/** Their names, in order: the ledger portico_migrations holds no other. */
export const LEGACY_MIGRATIONS = Object.keys(legacyMigrations('sqlite'));

const migrator = (db: Db, engine: 'sqlite' | 'postgres') =>
  new Migrator({
    db,
    provider: { getMigrations: async () => legacyMigrations(engine) } satisfies MigrationProvider,
    migrationTableName: 'portico_migrations',
    migrationLockTableName: 'portico_migrations_lock',
  });

/** Applies every legacy migration not applied yet; throws the first failure. */
export async function migrateLegacy(db: Db, engine: 'sqlite' | 'postgres'): Promise<void> {
  settled(await migrator(db, engine).migrateToLatest());
}

/** The legacy migrations not applied yet, by name, in order; reads only (no migration table is made). */
export async function pendingLegacy(db: Db, engine: 'sqlite' | 'postgres'): Promise<string[]> {
  return (await migrator(db, engine).getMigrations()).filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}

/** Applies the legacy migrations up to `name`: a database as an earlier release left it (for upgrade tests). */
export async function migrateLegacyUpTo(db: Db, engine: 'sqlite' | 'postgres', name: string): Promise<void> {
  settled(await migrator(db, engine).migrateTo(name));
}

function settled(result: MigrationResultSet): MigrationResultSet {
  if (result.error) throw result.error instanceof Error ? result.error : new Error('a migration failed', { cause: result.error });
  return result;
}
