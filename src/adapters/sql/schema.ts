// The tables as Kysely sees them; docs/storage.md describes them for people.
import type { Generated, Kysely } from 'kysely';

export interface InquiriesTable {
  id: string;
  created_at: number;
  status: string;
  channel: string;
  name: string;
  email: string;
  /** normalizeEmail(email); null on a row a node of an earlier version inserted, until it is filled. */
  email_normalized: string | null;
  message: string;
  locale: string;
  client_id: string | null;
  remote_ip: string;
  idempotency_key: string | null;
  fingerprint: string;
  attempts: Generated<number>;
  attempted_at: number | null;
  last_error: string | null;
  message_id: string | null;
  sent_at: number | null;
  webhook_at: number | null;
  next_attempt_at: number | null;
  acknowledged_at: number | null;
  /** contentHash (screening.ts); null on a row a node of an earlier version inserted. */
  content_hash: string | null;
  duplicate_of: string | null;
  /** The reasons, comma-separated; null when there were none. */
  spam_reasons: string | null;
  released_at: number | null;
  /** sales, demo or support; null: general, or a row a node of an earlier version inserted. */
  topic: string | null;
  /** The consent record (ConsentRecord); all null on a row a node of an earlier version inserted. */
  consent_at: number | null;
  consent_door: string | null;
  consent_policy_url: string | null;
  consent_text_sha256: string | null;
}

/** One try of one channel at one inquiry (DeliveryAttempt); deleted with its inquiry (on delete cascade). */
export interface DeliveryAttemptsTable {
  inquiry_id: string;
  channel: string;
  started_at: number;
  ended_at: number;
  /** 1: it got through; 0: it did not. */
  ok: number;
  result: string | null;
  error: string | null;
}

export interface OAuthClientsTable {
  client_id: string;
  secret_hash: string | null;
  client_name: string | null;
  /** JSON array. */
  redirect_uris: string;
  /** JSON array. */
  grant_types: string;
  token_endpoint_auth_method: string;
  scope: string;
  application_type: string | null;
  created_at: number;
  last_used_at: number | null;
}

export interface OAuthConsentsTable {
  id_hash: string;
  browser_hash: string;
  client_id: string;
  redirect_uri: string;
  scope: string;
  resource: string;
  code_challenge: string;
  state: string | null;
  expires_at: number;
  consumed_at: number | null;
}

export interface OAuthGrantsTable {
  grant_id: string;
  client_id: string;
  scope: string;
  resource: string;
  created_at: number;
  revoked_at: number | null;
}

export interface OAuthCodesTable {
  code_hash: string;
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scope: string;
  resource: string;
  expires_at: number;
  consumed_at: number | null;
}

export interface OAuthTokensTable {
  token_hash: string;
  kind: string;
  grant_id: string;
  client_id: string;
  scope: string;
  resource: string;
  expires_at: number;
  state: string;
  previous_hash: string | null;
  used_at: number | null;
}

export interface JobLeasesTable {
  name: string;
  holder: string;
  expires_at: number;
}

/** One online migration applied (migrations.ts): a schema change, or a backfill that has finished. */
export interface SchemaMigrationsTable {
  name: string;
  kind: string;
  /** 1 when the release before the migration runs on the schema it leaves; 0 when it does not. */
  compatible: number;
  applied_at: number;
}

export interface Tables {
  portico_schema_migrations: SchemaMigrationsTable;
  inquiries: InquiriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  portico_job_leases: JobLeasesTable;
  oauth_clients: OAuthClientsTable;
  oauth_consents: OAuthConsentsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
}

/** A database of these tables, SQLite or PostgreSQL. */
export type Db = Kysely<Tables>;
