// InquiryStore over Kysely: one row per inquiry, its delivery status updated in place.
import { sql, type ExpressionBuilder, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { Created, Delivered, DeliveryAttempt, InquiryFilter, InquiryStatus, InquiryStore } from '../../ports/inquiry-store.js';
import { normalizeEmail } from '../../ports/normalize-email.js';
import { attemptFromRow, attemptRow, fromRow, toRow } from './inquiry-rows.js';
import { fillNormalizedEmails } from './normalized-emails.js';
import type { Db, Tables } from './schema.js';

export interface SqlInquiryStoreOptions {
  /**
   * Holds two stores of the same content apart until the first commits: called in the transaction that
   * looks for an earlier identical inquiry, before it looks. Nothing on SQLite, whose writes are serial.
   */
  serializeDuplicates?(trx: Db, contentHash: string): Promise<void>;
}

/**
 * InquiryStore over Kysely, on either engine. A node on SQLite uses ../sqlite/inquiry-store.ts, which runs
 * the contact path's writes and the deletions as direct statements, committed in groups; a node on
 * PostgreSQL, ../postgres/inquiry-store.ts.
 */
export function sqlInquiryStore(db: Db, { serializeDuplicates }: SqlInquiryStoreOptions = {}): InquiryStore {
  const store: InquiryStore = {
    async create(inquiry, { claimAt, duplicatesSince } = {}) {
      if (duplicatesSince === undefined) return insert(db, toRow(inquiry, claimAt), null);
      return db.transaction().execute(async (trx) => {
        await serializeDuplicates?.(trx, inquiry.contentHash);
        const earlier = await trx
          .selectFrom('inquiries')
          .select(['id', 'duplicate_of'])
          .where('content_hash', '=', inquiry.contentHash)
          .where('created_at', '>=', duplicatesSince)
          .orderBy('created_at')
          .limit(1)
          .executeTakeFirst();
        const duplicateOf = earlier ? (earlier.duplicate_of ?? earlier.id) : null;
        return insert(trx, toRow(inquiry, duplicateOf === null ? claimAt : undefined, duplicateOf), duplicateOf);
      });
    },

    async get(id) {
      if (id.includes('\0')) return undefined; // PostgreSQL text holds no NUL: no such id exists.
      const row = await db.selectFrom('inquiries').selectAll().where('id', '=', id).executeTakeFirst();
      return row && fromRow(row);
    },

    async findByIdempotencyKey(key) {
      const row = await db.selectFrom('inquiries').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
      return row && fromRow(row);
    },

    async claimDelivery(id, at, staleBefore, resendSent = false) {
      const result = await db
        .updateTable('inquiries')
        .set({ status: 'pending', attempted_at: at, attempts: sql`attempts + 1` })
        .where('id', '=', id)
        .where((eb) =>
          eb.or([
            eb('status', '=', 'failed'),
            eb.and([eb('status', '=', 'pending'), eb('attempted_at', 'is', null)]),
            eb.and([eb('status', '=', 'pending'), eb('attempted_at', '<', staleBefore)]),
            ...(resendSent ? [eb('status', '=', 'sent')] : []),
          ]),
        )
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async release(id, at) {
      const result = await db
        .updateTable('inquiries')
        .set({ status: 'pending', released_at: at, attempted_at: at, attempts: sql`attempts + 1` })
        .where('id', '=', id)
        .where(STATUS_IS.spam)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    markSent: (id, at, delivered, attempts) =>
      withAttempts(db, id, attempts, (trx) =>
        trx
          .updateTable('inquiries')
          .set((eb) => ({ status: 'sent', sent_at: at, ...keep(eb, delivered), last_error: null, next_attempt_at: null }))
          .where('id', '=', id)
          .execute(),
      ),

    markFailed: (id, _at, failure, attempts) =>
      withAttempts(db, id, attempts, (trx) =>
        trx
          .updateTable('inquiries')
          .set((eb) => ({ status: 'failed', ...keep(eb, failure), last_error: failure.error, next_attempt_at: failure.nextAttemptAt }))
          .where('id', '=', id)
          .execute(),
      ),

    async recordAttempts(id, attempts) {
      if (attempts.length)
        await db
          .insertInto('delivery_attempts')
          .values(attempts.map((a) => attemptRow(id, a)))
          .execute();
    },

    async attempts(id) {
      const rows = await db.selectFrom('delivery_attempts').selectAll().where('inquiry_id', '=', id).orderBy('started_at').orderBy('ended_at').execute();
      return rows.map(attemptFromRow);
    },

    async listStalled(staleBefore, limit) {
      const rows = await db
        .selectFrom('inquiries')
        .selectAll()
        // A literal, so that both planners can prove the partial index inquiries_pending applies (migration 0003).
        .where(sql<boolean>`status = 'pending'`)
        .where((eb) => eb.or([eb('attempted_at', '<', staleBefore), eb.and([eb('attempted_at', 'is', null), eb('created_at', '<', staleBefore)])]))
        .orderBy('created_at')
        .limit(limit)
        .execute();
      return rows.map(fromRow);
    },

    async claimAcknowledgement(id, email, at, notSince) {
      const result = await db
        .updateTable('inquiries')
        .set({ acknowledged_at: at })
        .where('id', '=', id)
        .where('acknowledged_at', 'is', null)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('inquiries as earlier')
                .select('earlier.id')
                // A row a node of the release before stored during a roll has no normalized form yet: it
                // acknowledged by the address as sent (its index inquiries_acknowledged), and so is it found.
                .where((eb) => eb.or([eb('earlier.email_normalized', '=', normalizeEmail(email)), eb.and([eb('earlier.email_normalized', 'is', null), eb('earlier.email', '=', email)])]))
                .where('earlier.acknowledged_at', '>', notSince),
            ),
          ),
        )
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async listDue(now, limit) {
      const rows = await db
        .selectFrom('inquiries')
        .selectAll()
        .where('next_attempt_at', '<=', now)
        .where(sql<boolean>`status = 'failed'`)
        .orderBy('next_attempt_at')
        .limit(limit)
        .execute();
      return rows.map(fromRow);
    },

    async list({ status, topic, email, limit, since, after }) {
      let query = db.selectFrom('inquiries').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit);
      if (status) query = query.where(STATUS_IS[status]);
      if (topic !== undefined) query = query.where('topic', topic === null ? 'is' : '=', topic);
      if (email !== undefined) query = query.where('email_normalized', '=', normalizeEmail(email));
      if (since !== undefined) query = query.where('created_at', '>=', since);
      // The order's next rows, as one row-value comparison: both engines read it as a range of the
      // created_at index, where an OR of two conditions made SQLite gather and sort every older row.
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      return (await query.execute()).map(fromRow);
    },

    async backlog() {
      // Literal predicates, so that both planners use the partial indexes (migrations 0003 and 0004).
      const pending = db.selectFrom('inquiries').where(sql<boolean>`status = 'pending'`);
      const retrying = db.selectFrom('inquiries').where(sql<boolean>`next_attempt_at is not null and status = 'failed'`);
      const [p, r] = await Promise.all([
        pending.select((eb) => [eb.fn.countAll().as('count'), eb.fn.min('created_at').as('oldest')]).executeTakeFirstOrThrow(),
        retrying.select((eb) => [eb.fn.countAll().as('count'), eb.fn.min('created_at').as('oldest')]).executeTakeFirstOrThrow(),
      ]);
      // min() of no rows is null, whatever the column's type says.
      const oldest = [p.oldest as number | null, r.oldest as number | null].filter((at) => at !== null).map(Number);
      return { pending: Number(p.count), retrying: Number(r.count), oldestCreatedAt: oldest.length ? Math.min(...oldest) : null };
    },

    async count(filter) {
      const row = await matching(db.selectFrom('inquiries'), filter)
        .select((eb) => eb.fn.countAll().as('count'))
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async idsMatching(filter, limit) {
      const rows = await matching(db.selectFrom('inquiries'), filter).select('id').orderBy('created_at').limit(limit).execute();
      return rows.map((row) => row.id);
    },

    async deleteIds(ids) {
      if (!ids.length) return 0;
      const result = await db.deleteFrom('inquiries').where('id', 'in', ids).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    fillNormalizedEmails: () => fillNormalizedEmails(db),

    // PostgreSQL keeps a deleted row's bytes until VACUUM reuses its space (docs/deploy.md, "Personal data").
    async dropDeletedCopies() {},
  };
  return store;
}

/** Runs the status write and records the attempts beside it, in one transaction: both, or neither. */
async function withAttempts(db: Db, id: string, attempts: readonly DeliveryAttempt[], write: (trx: Db) => Promise<unknown>): Promise<void> {
  if (!attempts.length) {
    await write(db);
    return;
  }
  await db.transaction().execute(async (trx) => {
    await write(trx);
    await trx
      .insertInto('delivery_attempts')
      .values(attempts.map((a) => attemptRow(id, a)))
      .execute();
  });
}

/** Inserts the row unless its idempotency key is taken. */
async function insert(db: Db, row: ReturnType<typeof toRow>, duplicateOf: string | null): Promise<Created> {
  const result = await db
    .insertInto('inquiries')
    .values(row)
    // The predicate names SQLite's partial unique index (migration 0003); PostgreSQL's full one satisfies it too.
    .onConflict((oc) => oc.column('idempotency_key').where('idempotency_key', 'is not', null).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1 ? { stored: true, duplicateOf } : NOT_STORED;
}
export const NOT_STORED: Created = Object.freeze({ stored: false, duplicateOf: null });

/** The filter as a WHERE clause. */
function matching<Q extends SelectQueryBuilder<Tables, 'inquiries', object>>(query: Q, filter: InquiryFilter): Q {
  if ('id' in filter) return query.where('id', '=', filter.id) as Q;
  if ('email' in filter) return query.where('email_normalized', '=', normalizeEmail(filter.email)) as Q;
  const old = query.where('created_at', '<', filter.createdBefore) as Q;
  return filter.status ? (old.where(STATUS_IS[filter.status]) as Q) : old;
}

// Literals, not parameters, so that both planners can prove a partial index applies (inquiries_pending,
// inquiries_spam, inquiries_failed): each status is a small index of its own beside the created_at one.
const STATUS_IS: Record<InquiryStatus, RawBuilder<boolean>> = {
  pending: sql`status = 'pending'`,
  sent: sql`status = 'sent'`,
  failed: sql`status = 'failed'`,
  spam: sql`status = 'spam'`,
  duplicate: sql`status = 'duplicate'`,
};

/** A channel's outcome is written once it exists, and never erased by a later attempt that did not redo it. */
function keep(eb: ExpressionBuilder<Tables, 'inquiries'>, delivered: Delivered) {
  return {
    message_id: eb.fn.coalesce(eb.val(delivered.messageId ?? null), eb.ref('message_id')),
    webhook_at: eb.fn.coalesce(eb.val(delivered.webhookAt ?? null), eb.ref('webhook_at')),
  };
}
