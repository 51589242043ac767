// Inquiries as rows and back: the columns of the inquiries and delivery_attempts tables (schema.ts) for
// the types of the store's contract (src/ports/inquiry-store.ts), on either engine.
import type { Selectable } from 'kysely';
import type { AttemptChannel, ConsentDoor, DeliveryAttempt, Inquiry, NewInquiry } from '../../ports/inquiry-store.js';
import { normalizeEmail } from '../../ports/normalize-email.js';
import type { SpamReason } from '../../ports/spam-check.js';
import type { DeliveryAttemptsTable, InquiriesTable } from './schema.js';

/** A delivery_attempts row. */
export const attemptRow = (id: string, a: DeliveryAttempt) => ({
  inquiry_id: id,
  channel: a.channel,
  started_at: a.startedAt,
  ended_at: a.endedAt,
  ok: a.ok ? 1 : 0,
  result: a.result,
  error: a.error,
});

/**
 * The row of a new inquiry; `claimAt` when its first delivery attempt is claimed with the insert,
 * `duplicateOf` when it is a duplicate of that inquiry.
 */
export function toRow(inquiry: NewInquiry, claimAt?: number, duplicateOf: string | null = null) {
  return {
    id: inquiry.id,
    created_at: inquiry.createdAt,
    status: duplicateOf === null ? inquiry.status : 'duplicate',
    channel: inquiry.channel,
    name: inquiry.name,
    email: inquiry.email,
    email_normalized: normalizeEmail(inquiry.email),
    message: inquiry.message,
    locale: inquiry.locale,
    client_id: inquiry.clientId,
    remote_ip: inquiry.remoteIp,
    idempotency_key: inquiry.idempotencyKey,
    fingerprint: inquiry.fingerprint,
    attempts: claimAt === undefined ? 0 : 1,
    attempted_at: claimAt ?? null,
    last_error: null,
    message_id: null,
    sent_at: null,
    webhook_at: null,
    next_attempt_at: null,
    acknowledged_at: null,
    content_hash: inquiry.contentHash,
    duplicate_of: duplicateOf,
    spam_reasons: inquiry.spamReasons.length ? inquiry.spamReasons.join(',') : null,
    released_at: null,
    topic: inquiry.topic,
    consent_at: inquiry.consent?.at ?? null,
    consent_door: inquiry.consent?.door ?? null,
    consent_policy_url: inquiry.consent?.policyUrl ?? null,
    consent_text_sha256: inquiry.consent?.textSha256 ?? null,
  };
}

export const toNumber = (value: number | string | bigint | null) => (value === null ? null : Number(value));

export function fromRow(row: Selectable<InquiriesTable>): Inquiry {
  return {
    id: row.id,
    createdAt: row.created_at,
    status: row.status as Inquiry['status'],
    channel: row.channel as Inquiry['channel'],
    name: row.name,
    email: row.email,
    message: row.message,
    locale: row.locale,
    clientId: row.client_id,
    remoteIp: row.remote_ip,
    idempotencyKey: row.idempotency_key,
    fingerprint: row.fingerprint,
    attempts: row.attempts,
    attemptedAt: toNumber(row.attempted_at),
    lastError: row.last_error,
    messageId: row.message_id,
    webhookAt: toNumber(row.webhook_at),
    sentAt: toNumber(row.sent_at),
    nextAttemptAt: toNumber(row.next_attempt_at),
    spamReasons: row.spam_reasons === null ? [] : (row.spam_reasons.split(',') as SpamReason[]),
    duplicateOf: row.duplicate_of,
    releasedAt: toNumber(row.released_at),
    topic: row.topic as Inquiry['topic'],
    consent: row.consent_at === null ? null : { at: toNumber(row.consent_at)!, door: row.consent_door as ConsentDoor, policyUrl: row.consent_policy_url, textSha256: row.consent_text_sha256! },
  };
}

/** A delivery_attempts row read back. */
export function attemptFromRow(row: Selectable<DeliveryAttemptsTable>): DeliveryAttempt {
  return {
    channel: row.channel as AttemptChannel,
    startedAt: toNumber(row.started_at)!,
    endedAt: toNumber(row.ended_at)!,
    ok: row.ok === 1,
    result: row.result,
    error: row.error,
  };
}
