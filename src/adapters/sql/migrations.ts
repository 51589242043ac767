// Schema migrations, in order; run at start and by `portico migrate`. Never edit one that has shipped.
import { Kysely, Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';

const migrations: Record<string, Migration> = {
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
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Applies every pending migration; throws the first failure. */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  const result = await new Migrator({ db, provider, migrationTableName: 'portico_migrations', migrationLockTableName: 'portico_migrations_lock' }).migrateToLatest();
  if (result.error) throw result.error;
  return result;
}
