// The tables as Kysely sees them; docs/storage.md describes them for people.
import type { Generated } from 'kysely';

export interface InquiriesTable {
  id: string;
  created_at: number;
  status: string;
  channel: string;
  name: string;
  email: string;
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
}

export interface Tables {
  inquiries: InquiriesTable;
}
