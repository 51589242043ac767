// Submitting an inquiry: honeypot -> idempotent replay -> human check -> store -> send -> receipt.
import { hash } from 'node:crypto';
import { AppError, invalidRequest } from '../../errors.js';
import type { Clock } from '../../ports/clock.js';
import { HumanCheckUnavailable, type HumanCheck } from '../../ports/human-check.js';
import type { Inquiry, InquiryChannel, InquiryStore, NewInquiry } from '../../ports/inquiry-store.js';
import { MailDeliveryError, type Mailer } from '../../ports/mailer.js';
import { uuidV7, type Random } from '../../ports/random.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import { composeInquiryEmail, type InquiryMailSettings } from './email.js';
import type { ContactRequest } from './schema.js';

export interface ContactDeps {
  inquiries: InquiryStore;
  mailer: Mailer;
  /** Absent when Turnstile is disabled. */
  humanCheck: HumanCheck | undefined;
  clock: Clock;
  random: Random;
  mail: InquiryMailSettings;
  /** Quotas counted outside the routes: the contact tool's (D14). */
  limiter: RateLimiter;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

export interface Submission {
  request: ContactRequest;
  channel: InquiryChannel;
  remoteIp: string;
  /** Set when an authenticated client (Bearer contact:write, or MCP) sends it: no human check. */
  clientId: string | null;
  authenticated: boolean;
  idempotencyKey: string | undefined;
}

// Longer than the SMTP timeouts together: a pending attempt this old belongs to a dead process.
export const STALE_ATTEMPT_MS = 60_000;
const HUMAN_CHECK_RETRY_AFTER_SECONDS = '10';

export async function submitInquiry(deps: ContactDeps, submission: Submission): Promise<void> {
  const { request } = submission;
  const inquiry = newInquiry(deps, submission);

  // D8: a filled honeypot looks accepted to the bot, is kept as spam, and sends nothing.
  if (request.website?.trim()) {
    await deps.inquiries.create({ ...inquiry, status: 'spam', idempotencyKey: null });
    return;
  }

  // Before the human check: a browser retrying after a timeout has no fresh Turnstile token (each is
  // single-use), and a key is only ever found for its own sender (scopedKey), so this probes nothing.
  if (inquiry.idempotencyKey !== null) {
    const earlier = await deps.inquiries.findByIdempotencyKey(inquiry.idempotencyKey);
    if (earlier) return replay(deps, earlier, inquiry.fingerprint);
  }

  if (!submission.authenticated && deps.humanCheck) await checkHuman(deps.humanCheck, request.turnstileToken, submission.remoteIp);

  // Stored with its first delivery attempt already claimed: one write before the e-mail, not three.
  if (!(await deps.inquiries.create(inquiry, inquiry.createdAt))) {
    // A concurrent request with the same Idempotency-Key stored first.
    const earlier = await deps.inquiries.findByIdempotencyKey(inquiry.idempotencyKey!);
    return replay(deps, earlier!, inquiry.fingerprint);
  }
  await send(deps, inquiry);
}

/** Sends a stored inquiry, recording the outcome; used for retries and by `inquiries resend`. */
export async function deliver(deps: ContactDeps, id: string, options: { resendSent?: boolean } = {}): Promise<void> {
  const now = deps.clock.now();
  if (!(await deps.inquiries.claimDelivery(id, now, now - STALE_ATTEMPT_MS, options.resendSent))) {
    throw new AppError('idempotency_in_progress', 'this inquiry is already being delivered; retry shortly', { 'Retry-After': '5' });
  }
  await send(deps, (await deps.inquiries.get(id))!);
}

/** E-mails an inquiry whose delivery attempt this process holds, and records the outcome. */
async function send(deps: ContactDeps, inquiry: NewInquiry): Promise<void> {
  const { id } = inquiry;
  try {
    const { messageId } = await deps.mailer.send(composeInquiryEmail(inquiry, deps.mail));
    await deps.inquiries.markSent(id, deps.clock.now(), messageId);
  } catch (error) {
    if (!(error instanceof MailDeliveryError)) throw error;
    await deps.inquiries.markFailed(id, deps.clock.now(), error.message);
    deps.log.error({ inquiry: id, reason: error.message }, 'inquiry e-mail not delivered; kept for resend');
    throw new AppError('delivery_failed', 'the inquiry was received but the e-mail could not be delivered; it is kept and will be resent');
  }
}

async function replay(deps: ContactDeps, earlier: Inquiry, fingerprint: string): Promise<void> {
  if (earlier.fingerprint !== fingerprint) {
    throw new AppError('idempotency_key_reused', 'this Idempotency-Key was already used with a different request');
  }
  if (earlier.status === 'sent') return;
  // Failed, or stalled by a crash: this retry delivers the stored inquiry (it passed its checks then).
  await deliver(deps, earlier.id);
}

async function checkHuman(humanCheck: HumanCheck, token: string | undefined, remoteIp: string): Promise<void> {
  if (!token) throw invalidRequest('turnstileToken is required (or authenticate with a Bearer token with scope contact:write)');
  let result;
  try {
    result = await humanCheck.verify({ token, remoteIp });
  } catch (error) {
    if (!(error instanceof HumanCheckUnavailable)) throw error;
    throw new AppError('human_check_unavailable', 'the human check (Turnstile) is unavailable; retry later', { 'Retry-After': HUMAN_CHECK_RETRY_AFTER_SECONDS });
  }
  if (!result.passed) throw new AppError('human_check_failed', `the Turnstile token was rejected (${result.reasons.join(', ')})`);
}

function newInquiry(deps: ContactDeps, submission: Submission): NewInquiry {
  const { name, email, message, locale } = submission.request;
  const now = deps.clock.now();
  return {
    id: uuidV7(now, deps.random),
    createdAt: now,
    status: 'pending',
    channel: submission.channel,
    name,
    email,
    message,
    locale,
    clientId: submission.clientId,
    remoteIp: submission.remoteIp,
    idempotencyKey: scopedKey(submission),
    fingerprint: hash('sha256', JSON.stringify([name, email, message, locale]), 'hex'),
  };
}

/**
 * D14: an Idempotency-Key belongs to its sender: the OAuth client for Bearer callers; for anonymous ones the
 * address and the door (web or mcp) it came through, which an attacker elsewhere cannot share with its
 * victim. Stored as `sender key` (a sender holds no space), so one sender can neither claim another's key
 * (a lost lead answered 422) nor learn whether it exists.
 */
function scopedKey(submission: Pick<Submission, 'idempotencyKey' | 'clientId' | 'channel' | 'remoteIp'>): string | null {
  if (submission.idempotencyKey === undefined) return null;
  return `${submission.clientId ?? `${submission.channel}@${submission.remoteIp}`} ${submission.idempotencyKey}`;
}
