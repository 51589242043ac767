// An opened database with what its engine alone provides, chosen once, when it is opened (D21):
// ../sqlite/engine.ts and ../postgres/engine.ts.
import type { InquiryStore } from '../../ports/inquiry-store.js';
import type { JobLeases } from '../../ports/job-leases.js';
import type { OAuthStore } from '../../ports/oauth-store.js';
import type { Db } from './schema.js';
import type { SchemaChanges } from './schema-changes.js';

export interface Log {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface Engine {
  readonly name: 'sqlite' | 'postgres';
  /** The database as Kysely sees it, for the portable statements. */
  readonly db: Db;
  readonly inquiries: InquiryStore;
  readonly oauth: OAuthStore;
  readonly leases: JobLeases;
  /** How this engine changes the schema while other nodes serve (migrations.ts). */
  readonly schemaChanges: SchemaChanges;
  /** Resolves when the database takes writes now; throws (store_unavailable) when it does not (/readyz, D23). */
  writable(): Promise<void>;
  /** Work the engine does beside a serving node until stop(): SQLite's checkpoint thread; undefined when none. */
  serveInBackground(log: Log): { stop(): Promise<void> } | undefined;
  destroy(): Promise<void>;
}
