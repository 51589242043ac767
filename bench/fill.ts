// Years of data in seconds: inquiries, their outbox copies and OAuth tokens written straight into a
// node's database (through its schema and migrations, not HTTP), shaped as a busy site leaves them.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { sql } from 'kysely';
import { copyPath } from '../src/adapters/mail/outbox-mailer.js';
import { openDatabase, type Db } from '../src/adapters/sql/database.js';
import { migrateToLatest } from '../src/adapters/sql/migration-runner.js';
import type { Database } from '../src/config/config.js';
import { cryptoRandom, uuidV7 } from '../src/ports/random.js';

const DAY_MS = 86_400_000;
// Rows per INSERT: under both engines' limits on bound parameters (20 columns a row).
const ROWS_PER_INSERT = 1_000;
const CLIENTS = 1_000;
// Outbox copies are written empty: what a full folder costs Portico is its entries and inodes (writing
// a file into it, deleting one); their bytes would only make the fill wait for the disk.
const EML = Buffer.alloc(0);

export interface Fill {
  inquiries: number;
  tokens: number;
  /** Where the outbox copies of the sent inquiries go; none written when absent. */
  outboxDir?: string;
}

/** Fills the database: sent inquiries (a twentieth of them spam) over the last 360 days, tokens valid for 30 more. */
export async function fill(database: Database, what: Fill, now = Date.now()): Promise<void> {
  const engine = openDatabase(database);
  const { db } = engine;
  try {
    await migrateToLatest(engine);
    await fillInquiries(db, what.inquiries, now, what.outboxDir);
    await fillTokens(db, what.tokens, now);
    if (database.engine === 'postgres') await sql`analyze`.execute(db);
  } finally {
    await engine.destroy();
  }
}

async function fillInquiries(db: Db, count: number, now: number, outboxDir: string | undefined): Promise<void> {
  const random = cryptoRandom;
  const start = now - 360 * DAY_MS;
  const step = (360 * DAY_MS) / Math.max(count, 1);
  for (let first = 0; first < count; first += ROWS_PER_INSERT) {
    const rows = [];
    for (let i = first; i < Math.min(count, first + ROWS_PER_INSERT); i++) {
      const createdAt = Math.floor(start + i * step);
      // Spam is kept 30 days (SPAM_RETENTION): only the last month holds any.
      const spam = i % 20 === 0 && createdAt > now - 29 * DAY_MS;
      const person = i % 200_000;
      rows.push({
        id: uuidV7(createdAt, random),
        created_at: createdAt,
        status: spam ? 'spam' : 'sent',
        channel: (['web', 'api', 'mcp'] as const)[i % 3]!,
        name: `Person ${person}`,
        email: `person${person}@example.org`,
        message: `We manage ${i % 90} buildings and would like to see how residents could book the shared rooms. `.repeat(3),
        locale: i % 2 ? 'en' : 'es',
        client_id: null,
        remote_ip: `198.51.100.${i % 250}`,
        idempotency_key: i % 4 === 0 ? randomBytes(12).toString('hex') : null,
        fingerprint: randomBytes(32).toString('hex'),
        attempts: spam ? 0 : 1,
        attempted_at: spam ? null : createdAt,
        last_error: null,
        message_id: spam ? null : `<${i}@portico.example>`,
        sent_at: spam ? null : createdAt + 900,
        webhook_at: null,
        next_attempt_at: null,
        // Most submitters write once; each was acknowledged.
        acknowledged_at: spam ? null : createdAt + 1_000,
        content_hash: randomBytes(32).toString('hex'),
        spam_reasons: spam ? 'honeypot' : null,
      });
    }
    await db.insertInto('inquiries').values(rows).execute();
    if (outboxDir) {
      const paths = rows.filter((row) => row.status === 'sent').map((row) => copyPath(outboxDir, row.id));
      for (const folder of new Set(paths.map(dirname))) await mkdir(folder, { recursive: true });
      await Promise.all(paths.map((path) => writeFile(path, EML)));
    }
  }
}

async function fillTokens(db: Db, count: number, now: number): Promise<void> {
  const clients = Array.from({ length: CLIENTS }, (_, i) => ({
    client_id: `growth-client-${i}`,
    secret_hash: randomBytes(32).toString('hex'),
    client_name: `client ${i}`,
    redirect_uris: '[]',
    grant_types: '["client_credentials"]',
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'contact:write mcp:invoke',
    application_type: null,
    created_at: now - 300 * DAY_MS,
    last_used_at: now - DAY_MS,
  }));
  await db.insertInto('oauth_clients').values(clients).execute();
  for (let first = 0; first < count; first += ROWS_PER_INSERT) {
    const rows = [];
    for (let i = first; i < Math.min(count, first + ROWS_PER_INSERT); i++) {
      const issuedAt = now - Math.floor(((count - i) / count) * 30 * DAY_MS);
      rows.push({
        // tokenKey's shape: the issue time as 12 hex digits, then a SHA-256 in hex.
        token_hash: `${issuedAt.toString(16).padStart(12, '0')}${randomBytes(32).toString('hex')}`,
        kind: i % 2 ? 'refresh' : 'access',
        grant_id: `grant-${i >> 1}`,
        client_id: `growth-client-${i % CLIENTS}`,
        scope: 'contact:write',
        resource: 'https://portico.example/api/contact',
        // Valid for 30 more days: the expired-state purge leaves them for the whole run.
        expires_at: now + 30 * DAY_MS,
        state: 'active',
        previous_hash: null,
        used_at: null,
      });
    }
    await db.insertInto('oauth_tokens').values(rows).execute();
  }
}
