// The online migrations (D22), in order, after the legacy ones (legacy-migrations.ts): schema changes that
// the release before tolerates, applied at start by the first node of a release and by `portico migrate`,
// and backfills that run in batches while the nodes serve. Never edit one that has shipped; a release's
// migrations are listed in the CHANGELOG's upgrade notes.
import { countUnnormalizedEmails, fillNormalizedEmailBatch } from './normalized-emails.js';
import type { SchemaStep } from './schema-changes.js';
import type { Db } from './schema.js';

export interface SchemaMigration {
  name: string;
  kind: 'schema';
  /**
   * Whether the release before this migration runs on the schema it leaves (it only adds: nullable
   * columns, indexes, tables). Then a roll can go on with old and new nodes side by side, and go back.
   * A migration that drops or renames is not: every node of the release before is stopped first.
   */
  compatible: boolean;
  steps: readonly SchemaStep[];
}

export interface Backfill {
  name: string;
  kind: 'backfill';
  /** Fills one batch of rows; how many it filled, 0 when none was left. */
  fillBatch(db: Db): Promise<number>;
  /** Rows still to fill. */
  remaining(db: Db): Promise<number>;
}

export type OnlineMigration = SchemaMigration | Backfill;

export const MIGRATIONS: readonly OnlineMigration[] = [
  // A person's inquiries are found by the address however it was typed (src/ports/normalize-email.ts):
  // the normalized form beside each row, indexed with created_at for `export` and `erase --email`, and the
  // once-a-day acknowledgement looked up by it. Nodes of the release before still look acknowledgements
  // up in inquiries_acknowledged and insert rows without the column; the index holds those rows under
  // NULL, where the backfill 0009 finds them.
  {
    name: '0007_normalized_email',
    kind: 'schema',
    compatible: true,
    steps: [
      { kind: 'add-columns', table: 'inquiries', columns: [['email_normalized', 'text']] },
      { kind: 'create-index', name: 'inquiries_email_normalized', table: 'inquiries', columns: 'email_normalized, created_at' },
      { kind: 'create-index', name: 'inquiries_acknowledged_normalized', table: 'inquiries', columns: 'email_normalized, acknowledged_at', where: 'acknowledged_at is not null' },
    ],
  },
  // Screening (D20): each inquiry's content hash, looked up with created_at to find an earlier identical
  // one within DUPLICATE_WINDOW; the first one's id on a duplicate; the reasons screening gave; when the
  // team released one from spam. A node of the release before inserts rows without a hash, which no later
  // inquiry is found a duplicate of. Duplicates get an index of their own, as the other statuses kept apart
  // from delivery have (0005, 0006).
  {
    name: '0008_screening',
    kind: 'schema',
    compatible: true,
    steps: [
      {
        kind: 'add-columns',
        table: 'inquiries',
        columns: [
          ['content_hash', 'text'],
          ['duplicate_of', 'text'],
          ['spam_reasons', 'text'],
          ['released_at', 'bigint'],
        ],
      },
      { kind: 'create-index', name: 'inquiries_content_hash', table: 'inquiries', columns: 'content_hash, created_at', where: 'content_hash is not null' },
      { kind: 'create-index', name: 'inquiries_duplicate', table: 'inquiries', columns: 'created_at', where: "status = 'duplicate'" },
    ],
  },
  // 0007's column for the rows stored before it. Rows a node of the release before stores during a roll
  // are found by `export` and `erase --email`, which fill the column first.
  { name: '0009_fill_normalized_email', kind: 'backfill', fillBatch: (db) => fillNormalizedEmailBatch(db), remaining: countUnnormalizedEmails },
  // Leads the team can act on: what each inquiry is about (indexed with created_at for `inquiries list
  // --topic`; general ones, most of them, stay out of the index), and the record of the consent it
  // carried. The release before inserts rows without them: general, with no record of consent.
  {
    name: '0010_topic_and_consent',
    kind: 'schema',
    compatible: true,
    steps: [
      {
        kind: 'add-columns',
        table: 'inquiries',
        columns: [
          ['topic', 'text'],
          ['consent_at', 'bigint'],
          ['consent_door', 'text'],
          ['consent_policy_url', 'text'],
          ['consent_text_sha256', 'text'],
        ],
      },
      { kind: 'create-index', name: 'inquiries_topic', table: 'inquiries', columns: 'topic, created_at', where: 'topic is not null' },
    ],
  },
  // Every try of every channel at an inquiry, for `portico inquiries show`: a table the release before never
  // touches, whose rows go with their inquiry's whichever release deletes it (on delete cascade; both
  // releases enforce foreign keys). Read and deleted by inquiry, through its index.
  {
    name: '0011_delivery_attempts',
    kind: 'schema',
    compatible: true,
    steps: [
      {
        kind: 'create-table',
        table: 'delivery_attempts',
        references: 'inquiries',
        columns: [
          'inquiry_id text not null references inquiries (id) on delete cascade',
          'channel text not null',
          'started_at bigint not null',
          'ended_at bigint not null',
          'ok integer not null',
          'result text',
          'error text',
        ],
      },
      { kind: 'create-index', name: 'delivery_attempts_inquiry', table: 'delivery_attempts', columns: 'inquiry_id, started_at' },
    ],
  },
];
