// Submitting an inquiry: honeypot -> idempotent replay -> human check -> screening -> store (or find it a
// duplicate) -> send -> receipt.
import { hash } from 'node:crypto';
import { AppError, invalidRequest } from '../../errors.js';
import { HumanCheckUnavailable, type HumanCheck } from '../../ports/human-check.js';
import type { Inquiry, InquiryChannel, NewInquiry } from '../../ports/inquiry-store.js';
import { uuidV7 } from '../../ports/random.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import { SpamCheckUnavailable, type SpamCheck, type SpamReason } from '../../ports/spam-check.js';
import { acknowledge } from './acknowledgement.js';
import { consentRecord } from './consent.js';
import type { AnswerFloor } from './answer-floor.js';
import type { PendingWork } from '../../pending-work.js';
import type { Admission } from './admission.js';
import { attempt, deliver, type DeliveryDeps } from './delivery.js';
import type { ContactRequest } from './schema.js';
import { contentHash, type Screened } from './screening.js';

/** How inquiries are screened (D20): built once from the configuration. */
export interface Screening {
  /** The reasons found on this node, without the network (screening.ts). */
  local(inquiry: Screened): SpamReason[];
  /** The reasons that keep an inquiry as spam (SPAM_HOLD). */
  hold: readonly SpamReason[];
  /** An identical inquiry within this long is a duplicate (DUPLICATE_WINDOW); 0: never. */
  duplicateWindowMs: number;
  /** Akismet, when AKISMET_KEY is set and screening is on. */
  remote: SpamCheck | undefined;
  /** When an inquiry kept back may be answered: no sooner than one that went out (answer-floor.ts). */
  answerFloor: AnswerFloor;
}

export interface ContactDeps extends DeliveryDeps {
  /** Absent when Turnstile is disabled. */
  humanCheck: HumanCheck | undefined;
  /** MAIL_ACKNOWLEDGE: a note to submitters who passed Turnstile or came with a token. */
  acknowledge: boolean;
  /** Quotas counted outside the routes: the contact tool's (D14). */
  limiter: RateLimiter;
  /** The inquiries this node works on at once, whichever door they come through (D19). */
  admission: Admission;
  /** Acknowledgements under way, which a stopping node waits for. */
  pending: PendingWork;
  screening: Screening;
  /** PRIVACY_POLICY_URL, named in each inquiry's consent record. */
  privacyPolicyUrl: string | undefined;
}

export interface Submission {
  request: ContactRequest;
  channel: InquiryChannel;
  remoteIp: string;
  /** Set when an authenticated client (Bearer contact:write, or MCP) sends it: no human check. */
  clientId: string | null;
  authenticated: boolean;
  idempotencyKey: string | undefined;
  /** What the request said of its sender, for a remote spam check: User-Agent and Referer. */
  userAgent: string | undefined;
  referrer: string | undefined;
}

const HUMAN_CHECK_RETRY_AFTER_SECONDS = '10';

/**
 * Stores and delivers one inquiry: a filled honeypot is kept as spam and sends nothing, a known
 * Idempotency-Key answers for its stored inquiry, an anonymous sender passes the human check first, and
 * screening (D20) keeps spam and duplicates back, answered as any other. Refusals throw AppError; so does
 * a node already at its bound of inquiries in flight (server_busy).
 */
export async function submitInquiry(deps: ContactDeps, submission: Submission): Promise<void> {
  const { request } = submission;
  const { screening } = deps;
  const inquiry = newInquiry(deps, submission, screening.local(request));

  // D8: a filled honeypot looks accepted to the bot, is kept as spam, and sends nothing: before any other
  // check, so that a bot learns nothing from a refusal, nor from the answer's time.
  if (inquiry.spamReasons.includes('honeypot') && screening.hold.includes('honeypot')) {
    await deps.admission.admit(() => store(deps, inquiry));
    return screening.answerFloor.keptBack(inquiry.createdAt);
  }

  // Before the human check: a browser retrying after a timeout has no fresh Turnstile token (each is
  // single-use), and a key is only ever found for its own sender (scopedKey), so this probes nothing.
  if (inquiry.idempotencyKey !== null) {
    const earlier = await deps.inquiries.findByIdempotencyKey(inquiry.idempotencyKey);
    if (earlier) return deps.admission.admit(() => replay(deps, earlier, inquiry.fingerprint));
  }

  // The outside checks wait outside the admission line, each bounded and timed by its own client
  // (form-poster.ts): a stalled Turnstile or Akismet holds no place that a Bearer or MCP inquiry needs (D23).
  const checked = !submission.authenticated && deps.humanCheck !== undefined;
  if (checked) await checkHuman(deps.humanCheck!, request.turnstileToken, submission.remoteIp);
  // Asked only of an inquiry nothing holds yet: the others are kept whatever it answers.
  if (screening.remote && !inquiry.spamReasons.some((reason) => screening.hold.includes(reason))) await askRemote(deps, screening.remote, inquiry, submission);

  const delivered = await deps.admission.admit(async () => {
    if (!(await store(deps, inquiry))) return false;
    // The submitter proved something (a passed check, or a token naming its client): never a stranger's address.
    if (deps.acknowledge && (checked || submission.clientId !== null)) deps.pending.start(acknowledge(deps, inquiry));
    await attempt(deps, inquiry);
    return true;
  });
  // Kept back, it is answered no sooner than a delivered one, outside the admission line: its wait holds no
  // place. Whatever the caller: a token's client is known and limited, but the texts it could probe are
  // anyone's.
  if (delivered) screening.answerFloor.delivered(inquiry.createdAt);
  else await screening.answerFloor.keptBack(inquiry.createdAt);
}

/**
 * Stores the inquiry: as spam when a reason holds it, as a duplicate when an identical one came within
 * DUPLICATE_WINDOW (neither is delivered), else with its first delivery attempt already claimed (one write
 * before the e-mail, not three). True when it is to be delivered now.
 */
async function store(deps: ContactDeps, inquiry: NewInquiry): Promise<boolean> {
  const { screening } = deps;
  const held = inquiry.spamReasons.some((reason) => screening.hold.includes(reason));
  if (held) inquiry.status = 'spam';
  const since = screening.duplicateWindowMs > 0 ? inquiry.createdAt - screening.duplicateWindowMs : undefined;
  const created = await deps.inquiries.create(inquiry, { claimAt: held ? undefined : inquiry.createdAt, duplicatesSince: since });
  if (!created.stored) {
    // A concurrent request with the same Idempotency-Key stored first.
    const earlier = await deps.inquiries.findByIdempotencyKey(inquiry.idempotencyKey!);
    await replay(deps, earlier!, inquiry.fingerprint);
    return false;
  }
  if (created.duplicateOf !== null) {
    deps.metrics.inquiryOutcome(inquiry.channel, inquiry.topic, 'duplicate');
    deps.log.info({ inquiry: inquiry.id, duplicateOf: created.duplicateOf }, 'inquiry is a duplicate; not delivered again');
    return false;
  }
  for (const reason of inquiry.spamReasons) deps.metrics.inquirySpamReason(inquiry.channel, reason, held ? 'held' : 'marked');
  if (held) {
    deps.metrics.inquiryOutcome(inquiry.channel, inquiry.topic, 'spam');
    deps.log.info({ inquiry: inquiry.id, spamReasons: inquiry.spamReasons }, 'inquiry kept as spam; `portico inquiries release` delivers it');
    return false;
  }
  deps.metrics.inquiryAccepted(inquiry.channel, inquiry.topic);
  return true;
}

/** Akismet's verdict joins the reasons; its outage never stops an inquiry, which goes on unjudged. */
async function askRemote(deps: ContactDeps, remote: SpamCheck, inquiry: NewInquiry, submission: Submission): Promise<void> {
  try {
    const { name, email, message, locale } = inquiry;
    if (await remote.isSpam({ name, email, message, locale, remoteIp: submission.remoteIp, userAgent: submission.userAgent, referrer: submission.referrer })) {
      inquiry.spamReasons.push('akismet');
    }
  } catch (error) {
    if (!(error instanceof SpamCheckUnavailable)) throw error;
    deps.log.warn({ inquiry: inquiry.id, reason: 'akismet-unavailable', error: error.message }, 'Akismet gave no verdict; the inquiry goes on unjudged');
  }
}

async function replay(deps: ContactDeps, earlier: Inquiry, fingerprint: string): Promise<void> {
  if (earlier.fingerprint !== fingerprint) {
    throw new AppError('idempotency_key_reused', 'this Idempotency-Key was already used with a different request');
  }
  // Answered as the first was: delivered, or kept back (spam, a duplicate) without a word of it.
  if (earlier.status === 'sent' || earlier.status === 'spam' || earlier.status === 'duplicate') return;
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

function newInquiry(deps: ContactDeps, submission: Submission, spamReasons: SpamReason[]): NewInquiry {
  const { name, email, message, locale, topic } = submission.request;
  const now = deps.clock.now();
  // A topic joins the fingerprint only when there is one: a retry of an inquiry without one, answered by
  // a node of the release before, finds the fingerprint it stored.
  const fingerprinted = topic === undefined ? [name, email, message, locale] : [name, email, message, locale, topic];
  return {
    id: uuidV7(now, deps.random),
    createdAt: now,
    status: 'pending',
    channel: submission.channel,
    name,
    email,
    message,
    locale,
    topic: topic ?? null,
    consent: consentRecord(submission.request, submission.channel, now, deps.privacyPolicyUrl),
    clientId: submission.clientId,
    remoteIp: submission.remoteIp,
    idempotencyKey: scopedKey(submission),
    fingerprint: hash('sha256', JSON.stringify(fingerprinted), 'hex'),
    contentHash: contentHash(email, message),
    spamReasons,
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
