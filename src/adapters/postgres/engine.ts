// The shared engine for several nodes: a bounded pool (pool.ts), the portable Kysely stores with
// PostgreSQL's own statements where they pay (inquiry-store.ts, oauth-store.ts), and online schema changes.
import { sql } from 'kysely';
import type { Engine } from '../sql/engine.js';
import { sqlJobLeases } from '../sql/job-leases.js';
import { postgresInquiryStore } from './inquiry-store.js';
import { postgresOAuthStore } from './oauth-store.js';
import { openPostgres } from './pool.js';
import { postgresSchemaChanges } from './schema-changes.js';

export function postgresEngine(url: string): Engine {
  const db = openPostgres(url);
  return {
    name: 'postgres',
    db,
    inquiries: postgresInquiryStore(db),
    oauth: postgresOAuthStore(db),
    leases: sqlJobLeases(db),
    schemaChanges: postgresSchemaChanges(url),
    // A server that answers takes writes: a table's lock is held for a second at most (schema-changes.ts).
    async writable() {
      await sql`select 1`.execute(db);
    },
    serveInBackground: () => undefined,
    destroy: () => db.destroy(),
  };
}
