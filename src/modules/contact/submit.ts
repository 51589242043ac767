// Submitting an inquiry: honeypot -> idempotent replay -> human check -> store -> send -> receipt.
import { hash } from 'node:crypto';
import { AppError, invalidRequest } from '../../errors.js';
import { HumanCheckUnavailable, type HumanCheck } from '../../ports/human-check.js';
import type { Inquiry, InquiryChannel, NewInquiry } from '../../ports/inquiry-store.js';
import { uuidV7 } from '../../ports/random.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import { acknowledge } from './acknowledgement.js';
import type { Admission } from './admission.js';
import { attempt, deliver, type DeliveryDeps } from './delivery.js';
import type { ContactRequest } from './schema.js';

export interface ContactDeps extends DeliveryDeps {
  /** Absent when Turnstile is disabled. */
  humanCheck: HumanCheck | undefined;
  /** MAIL_ACKNOWLEDGE: a note to submitters who passed Turnstile or came with a token. */
  acknowledge: boolean;
  /** Quotas counted outside the routes: the contact tool's (D14). */
  limiter: RateLimiter;
  /** The inquiries this node works on at once, whichever door they come through (D19). */
  admission: Admission;
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

const HUMAN_CHECK_RETRY_AFTER_SECONDS = '10';

/**
 * Stores and delivers one inquiry: a filled honeypot is kept as spam and sends nothing, a known
 * Idempotency-Key answers for its stored inquiry, and an anonymous sender passes the human check first.
 * Refusals throw AppError; so does a node already at its bound of inquiries in flight (server_busy).
 */
export function submitInquiry(deps: ContactDeps, submission: Submission): Promise<void> {
  return deps.admission.admit(() => submit(deps, submission));
}

async function submit(deps: ContactDeps, submission: Submission): Promise<void> {
  const { request } = submission;
  const inquiry = newInquiry(deps, submission);

  // D8: a filled honeypot looks accepted to the bot, is kept as spam, and sends nothing.
  if (request.website?.trim()) {
    await deps.inquiries.create({ ...inquiry, status: 'spam', idempotencyKey: null });
    deps.metrics.inquiryOutcome(inquiry.channel, 'spam');
    return;
  }

  // Before the human check: a browser retrying after a timeout has no fresh Turnstile token (each is
  // single-use), and a key is only ever found for its own sender (scopedKey), so this probes nothing.
  if (inquiry.idempotencyKey !== null) {
    const earlier = await deps.inquiries.findByIdempotencyKey(inquiry.idempotencyKey);
    if (earlier) return replay(deps, earlier, inquiry.fingerprint);
  }

  const checked = !submission.authenticated && deps.humanCheck !== undefined;
  if (checked) await checkHuman(deps.humanCheck!, request.turnstileToken, submission.remoteIp);

  // Stored with its first delivery attempt already claimed: one write before the e-mail, not three.
  if (!(await deps.inquiries.create(inquiry, inquiry.createdAt))) {
    // A concurrent request with the same Idempotency-Key stored first.
    const earlier = await deps.inquiries.findByIdempotencyKey(inquiry.idempotencyKey!);
    return replay(deps, earlier!, inquiry.fingerprint);
  }
  deps.metrics.inquiryAccepted(inquiry.channel);
  // The submitter proved something (a passed check, or a token naming its client): never a stranger's address.
  if (deps.acknowledge && (checked || submission.clientId !== null)) void acknowledge(deps, inquiry);
  await attempt(deps, inquiry);
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
