// The inquiry store on SQLite: the contact path's writes and the deletions run directly on better-sqlite3
// (direct.ts); everything else is the portable Kysely store's (../sql/inquiry-store.ts).
import { setTimeout as pause } from 'node:timers/promises';
import { sql } from 'kysely';
import type { DeliveryAttempt, InquiryStore, NewInquiry } from '../../ports/inquiry-store.js';
import type { Db } from '../sql/schema.js';
import { attemptRow, toRow } from '../sql/inquiry-rows.js';
import { NOT_STORED, sqlInquiryStore } from '../sql/inquiry-store.js';
import type { DirectSqlite } from './direct.js';

// The columns of an inquiry's insert on SQLite's hot path, bound by name.
const INSERT_COLUMNS = Object.keys(toRow({ email: '', spamReasons: [] } as unknown as NewInquiry));
// Built once: the statement cache finds a statement by its text, and a string made anew is hashed anew.
const INSERT_SQL = `insert into inquiries (${INSERT_COLUMNS.join(', ')}) values (${INSERT_COLUMNS.map((column) => `@${column}`).join(', ')}) on conflict (idempotency_key) where idempotency_key is not null do nothing`;
// The earliest inquiry with the same content in the window, by the (content_hash, created_at) index (migration 0008).
const EARLIER_SQL = 'select id, duplicate_of from inquiries where content_hash = ? and created_at >= ? order by created_at limit 1';
const MARK_SENT_SQL =
  "update inquiries set status = 'sent', sent_at = ?, message_id = coalesce(?, message_id), webhook_at = coalesce(?, webhook_at), last_error = null, next_attempt_at = null where id = ?";
const MARK_FAILED_SQL = "update inquiries set status = 'failed', message_id = coalesce(?, message_id), webhook_at = coalesce(?, webhook_at), last_error = ?, next_attempt_at = ? where id = ?";
const RECORD_ATTEMPT_SQL = 'insert into delivery_attempts (inquiry_id, channel, started_at, ended_at, ok, result, error) values (@inquiry_id, @channel, @started_at, @ended_at, @ok, @result, @error)';

// Deleting an inquiry touches a page of each of its indexes: ten rows a commit keep each of the retention
// job's turns on the node's event loop short, and each of a purge's holds on the write lock.
const DELETES_PER_WRITE = 10;

/**
 * The inquiry store on an SQLite database: the portable store's methods, but for the contact path's
 * writes, run directly and committed in groups (direct.ts), and deletions, so that a purge beside a
 * serving node asks for the write lock as often as the node does.
 */
export function sqliteInquiryStore(db: Db, direct: DirectSqlite): InquiryStore {
  const portable = sqlInquiryStore(db);
  const record = (id: string, attempts: readonly DeliveryAttempt[]) => {
    for (const attempt of attempts) direct.statement(RECORD_ATTEMPT_SQL).run(attemptRow(id, attempt));
  };
  return {
    ...portable,
    async deleteIds(ids) {
      let deleted = 0;
      for (let i = 0; i < ids.length; i += DELETES_PER_WRITE) {
        const chunk = ids.slice(i, i + DELETES_PER_WRITE);
        const started = performance.now();
        deleted += await direct.write(() => direct.statement(`delete from inquiries where id in (${chunk.map(() => '?').join(', ')})`).run(...chunk).changes);
        // A node beside a purge asks for the lock again a millisecond after finding it taken (direct.ts):
        // the lock is left free as long as it was held, so that its writes get in between.
        if (i + DELETES_PER_WRITE < ids.length) await pause(Math.max(1, performance.now() - started));
      }
      return deleted;
    },
    // The look for an earlier inquiry and the insert run in one write: in one transaction, which one
    // process at a time commits (BEGIN IMMEDIATE), so of two identical inquiries one is the duplicate.
    create: (inquiry, { claimAt, duplicatesSince } = {}) =>
      direct.write(() => {
        const earlier =
          duplicatesSince === undefined ? undefined : (direct.statement(EARLIER_SQL).get(inquiry.contentHash, duplicatesSince) as { id: string; duplicate_of: string | null } | undefined);
        const duplicateOf = earlier ? (earlier.duplicate_of ?? earlier.id) : null;
        const row = toRow(inquiry, duplicateOf === null ? claimAt : undefined, duplicateOf);
        return direct.statement(INSERT_SQL).run(row).changes === 1 ? { stored: true, duplicateOf } : NOT_STORED;
      }),
    // The status and the attempts in one write, in the same group commit. An attempt refused (its inquiry
    // erased meanwhile) refuses the write, whose update then changed nothing.
    markSent: (id, at, delivered, attempts) =>
      direct.write(() => {
        direct.statement(MARK_SENT_SQL).run(at, delivered.messageId ?? null, delivered.webhookAt ?? null, id);
        record(id, attempts);
      }),
    markFailed: (id, _at, failure, attempts) =>
      direct.write(() => {
        direct.statement(MARK_FAILED_SQL).run(failure.messageId ?? null, failure.webhookAt ?? null, failure.error, failure.nextAttemptAt, id);
        record(id, attempts);
      }),
    recordAttempts: (id, attempts) => direct.write(() => record(id, attempts)),
    // The WAL still holds the pages as they were before the deletion: copy the new ones into the file and empty it.
    dropDeletedCopies: async () => {
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    },
  };
}
