// Delivery as a durable job (D15): an attempt sends the inquiry on every channel that does not have it
// yet (the team's e-mail, the webhook), records what got through, and schedules the next attempt.
import { setTimeout as pause } from 'node:timers/promises';
import { AppError } from '../../errors.js';
import type { Clock } from '../../ports/clock.js';
import type { AttemptChannel, Deliverable, Delivered, DeliveryAttempt, InquiryStore } from '../../ports/inquiry-store.js';
import { MailDeliveryError, type Mailer } from '../../ports/mailer.js';
import type { DeliveryChannel, Metrics } from '../../ports/metrics.js';
import type { Random } from '../../ports/random.js';
import { WebhookDeliveryError, type WebhookSender } from '../../ports/webhook.js';
import { composeInquiryEmail, isMarked, type InquiryMailSettings } from './email.js';

export interface DeliveryDeps {
  inquiries: InquiryStore;
  /** The e-mail channel; undefined when only the webhook is configured. */
  mailer: Mailer | undefined;
  webhook: WebhookSender | undefined;
  clock: Clock;
  random: Random;
  mail: InquiryMailSettings;
  /** How long after its acceptance an inquiry is still retried (MAIL_RETRY_FOR). */
  retryForMs: number;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  metrics: Metrics;
}

// Longer than an attempt can take (the e-mail's 14 s deadline, then the webhook's 10 s): a pending
// attempt this old belongs to a process that died.
export const STALE_ATTEMPT_MS = 60_000;
// D15: the first retry within 30 s (15 s at most, plus the 5 s between two looks for due inquiries),
// doubling to at most an hour.
export const FIRST_RETRY_MS = 15_000;
export const MAX_RETRY_MS = 3_600_000;
export const WEBHOOK_EVENT = 'inquiry.received';
// D23: what a channel accepted is recorded even when the store cannot write for a while (another process
// holds SQLite's lock, PostgreSQL restarts): the write is asked again for this long, well within
// STALE_ATTEMPT_MS, so that the stale-attempt job never takes a delivered inquiry for an abandoned one.
const RECORD_WITHIN_MS = 15_000;
const RECORD_RETRY_MS = 500;

/** Starts a delivery attempt on a stored inquiry and runs it; used for retries and by `inquiries resend`. */
export async function deliver(deps: DeliveryDeps, id: string, options: { resendSent?: boolean } = {}): Promise<void> {
  const now = deps.clock.now();
  if (!(await deps.inquiries.claimDelivery(id, now, now - STALE_ATTEMPT_MS, options.resendSent))) {
    throw new AppError('idempotency_in_progress', 'this inquiry is already being delivered; retry shortly', { 'Retry-After': '5' });
  }
  const inquiry = (await deps.inquiries.get(id))!;
  // A resend of a delivered inquiry goes out on every channel again; any other attempt completes what is missing.
  await attempt(deps, options.resendSent && inquiry.status !== 'failed' ? { ...inquiry, messageId: null, webhookAt: null } : inquiry);
}

/**
 * Sends an inquiry whose delivery attempt this process holds on each channel that lacks it, and records
 * the outcome. Answers as the contract asks: nothing thrown once some channel has the inquiry (the team
 * has the lead, the rest is retried); 502 `delivery_failed` when none has it.
 */
export async function attempt(deps: DeliveryDeps, inquiry: Deliverable): Promise<void> {
  const delivered: Delivered = {};
  const failures: { reason: string; permanent: boolean }[] = [];
  // Each channel's try, recorded with the outcome in the same write.
  const attempts: DeliveryAttempt[] = [];
  const timed = async (channel: DeliveryChannel, send: () => Promise<string>): Promise<void> => {
    const { thrown, ...tried } = await tryOnce(deps.clock, channel, send);
    deps.metrics.deliveryAttempt(channel, tried.ok, (tried.endedAt - tried.startedAt) / 1000);
    attempts.push(tried);
    if (!tried.ok) throw thrown;
  };
  if (deps.mailer && !inquiry.messageId) {
    const email = composeInquiryEmail(inquiry, deps.mail);
    try {
      await timed('mail', () => deps.mailer!.send(email));
      delivered.messageId = email.messageId;
    } catch (error) {
      if (!(error instanceof MailDeliveryError)) throw error;
      failures.push({ reason: error.message, permanent: error.permanent });
    }
  }
  if (deps.webhook && !inquiry.webhookAt) {
    try {
      await timed('webhook', async () => `HTTP ${await deps.webhook!.send(webhookEvent(inquiry))}`);
      delivered.webhookAt = deps.clock.now();
    } catch (error) {
      if (!(error instanceof WebhookDeliveryError)) throw error;
      failures.push({ reason: error.message, permanent: false });
    }
  }

  const now = deps.clock.now();
  if (failures.length === 0) {
    deps.metrics.inquiryOutcome(inquiry.channel, inquiry.topic, 'delivered');
    try {
      return await recorded(deps, () => deps.inquiries.markSent(inquiry.id, now, delivered, attempts));
    } catch (error) {
      // The team has the lead: the caller is told so. Only a stale-attempt job may send it again now.
      deps.log.error({ err: error, inquiry: inquiry.id }, 'inquiry delivered, but its status could not be recorded; it may be delivered again');
      return;
    }
  }
  const nextAttemptAt = failures.some((f) => f.permanent) ? null : retryAt(inquiry.createdAt, inquiry.attempts ?? 1, now, deps.retryForMs, deps.random);
  deps.metrics.inquiryOutcome(inquiry.channel, inquiry.topic, nextAttemptAt === null ? 'failed' : 'retrying');
  const error = failures.map((f) => f.reason).join('; ');
  await recorded(deps, () => deps.inquiries.markFailed(inquiry.id, now, { ...delivered, error, nextAttemptAt }, attempts));
  const retry = nextAttemptAt === null ? 'no retry left; kept for `portico inquiries resend`' : `retried at ${new Date(nextAttemptAt).toISOString()}`;
  deps.log.error({ inquiry: inquiry.id, reason: error, nextAttemptAt }, `inquiry not delivered; ${retry}`);

  const reachedSomeone = Boolean(delivered.messageId || delivered.webhookAt || inquiry.messageId || inquiry.webhookAt);
  if (reachedSomeone) return;
  throw new AppError(
    'delivery_failed',
    nextAttemptAt === null
      ? 'the inquiry was received and stored, but it could not be delivered and will not be retried automatically; the team can resend it'
      : `the inquiry was received and stored, but it could not be delivered yet; it is retried automatically for up to ${hours(deps.retryForMs)}`,
  );
}

/**
 * One try on one channel, timed: what the other end said, or why it failed, with what was `thrown`, for
 * the caller to rethrow once the try is recorded.
 */
export async function tryOnce(clock: Clock, channel: AttemptChannel, send: () => Promise<string>): Promise<DeliveryAttempt & { thrown?: unknown }> {
  const startedAt = clock.now();
  try {
    const result = await send();
    return { channel, startedAt, endedAt: clock.now(), ok: true, result, error: null };
  } catch (error) {
    const result = error instanceof MailDeliveryError ? (error.reply ?? null) : error instanceof WebhookDeliveryError && error.status !== undefined ? `HTTP ${error.status}` : null;
    return { channel, startedAt, endedAt: clock.now(), ok: false, result, error: error instanceof Error ? error.message : String(error), thrown: error };
  }
}

/** Runs the status write, asked again while the store says it cannot write, for RECORD_WITHIN_MS at most. */
async function recorded(deps: DeliveryDeps, write: () => Promise<void>): Promise<void> {
  const started = deps.clock.now();
  for (;;) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'store_unavailable') || deps.clock.now() - started >= RECORD_WITHIN_MS) throw error;
      await pause(RECORD_RETRY_MS);
    }
  }
}

/**
 * When to try again after `attempts` attempts: exponential backoff with jitter (half to all of the
 * step, so that inquiries failed together do not come back together), up to the end of the retry
 * period, with one last attempt at its end; null once it is over.
 */
export function retryAt(createdAt: number, attempts: number, now: number, retryForMs: number, random: Random): number | null {
  const end = createdAt + retryForMs;
  if (now >= end) return null;
  const step = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(attempts - 1, 20));
  const jitter = random.bytes(4).readUInt32BE() / 2 ** 32;
  return Math.min(end, Math.round(now + step / 2 + (step / 2) * jitter));
}

/** The webhook's event: the inquiry as the team needs it, never the sender's address or idempotency key. */
function webhookEvent(inquiry: Deliverable) {
  return {
    id: inquiry.id,
    type: WEBHOOK_EVENT,
    timestamp: new Date(inquiry.createdAt),
    data: {
      id: inquiry.id,
      createdAt: new Date(inquiry.createdAt).toISOString(),
      name: inquiry.name,
      email: inquiry.email,
      message: inquiry.message,
      locale: inquiry.locale,
      // null: a general inquiry.
      topic: inquiry.topic,
      channel: inquiry.channel,
      clientId: inquiry.clientId,
      // D20: what screening found. `possibleSpam` is what the team's e-mail marks; a released inquiry is not.
      spamReasons: inquiry.spamReasons,
      possibleSpam: isMarked(inquiry),
      releasedAt: inquiry.releasedAt ? new Date(inquiry.releasedAt).toISOString() : null,
    },
  };
}

function hours(ms: number): string {
  const [n, unit] = ms % 3_600_000 === 0 ? [ms / 3_600_000, 'hour'] : [Math.round(ms / 60_000), 'minute'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}
