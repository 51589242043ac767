// The inquiries kept before any e-mail is sent: the store contract every engine implements.
import type { SpamReason } from './spam-check.js';

/** `spam` and `duplicate` are never delivered (but a spam one the team releases). */
export type InquiryStatus = 'pending' | 'sent' | 'failed' | 'spam' | 'duplicate';
export type InquiryChannel = 'web' | 'api' | 'mcp';
/** What an inquiry is about, when its sender says (modules/common/topics.ts); without one it is general. */
export const TOPICS = ['sales', 'demo', 'support'] as const;
export type Topic = (typeof TOPICS)[number];
/** The name, in the metrics and `inquiries list --topic`, of an inquiry without a topic. */
export const GENERAL = 'general';
/**
 * Where the person accepted the privacy policy: a browser form (the embedded one, or the site's own on
 * POST /api/contact), the MCP App, an API client's own screen (Bearer), or a conversation with an agent.
 */
export type ConsentDoor = 'form' | 'app' | 'api' | 'tool';

/** What shows the person consented (GDPR Art. 7(1)), kept with the inquiry and erased with it. */
export interface ConsentRecord {
  /** When it was given: when the inquiry carrying `privacy: true` was received. */
  at: number;
  door: ConsentDoor;
  /** PRIVACY_POLICY_URL when it was given; null when none was set. */
  policyUrl: string | null;
  /** SHA-256 (hex) of the consent words shown (`consentText`, else the locale's words in docs/contact.md). */
  textSha256: string;
}

export interface Inquiry {
  id: string;
  createdAt: number;
  status: InquiryStatus;
  channel: InquiryChannel;
  name: string;
  email: string;
  message: string;
  locale: string;
  /** What it is about; null: a general inquiry. */
  topic: Topic | null;
  /** Null on a row an earlier version stored, which kept none. For a Bearer or MCP client, `clientId` asserted it. */
  consent: ConsentRecord | null;
  clientId: string | null;
  remoteIp: string;
  idempotencyKey: string | null;
  /** SHA-256 of the validated fields, to tell a retry from a reuse of its Idempotency-Key. */
  fingerprint: string;
  attempts: number;
  /** When the latest delivery attempt started. */
  attemptedAt: number | null;
  lastError: string | null;
  /** Set once the e-mail channel delivered it: the Message-ID every attempt gives it. */
  messageId: string | null;
  /** When the webhook channel delivered it. */
  webhookAt: number | null;
  /** When every channel had delivered it. */
  sentAt: number | null;
  /** When a failed inquiry is tried again (D15); null once its retries are over, or for any other status. */
  nextAttemptAt: number | null;
  /** Why screening thinks it may be spam (D20); empty when nothing did. */
  spamReasons: SpamReason[];
  /** The first inquiry of which this one is a duplicate (status `duplicate`). */
  duplicateOf: string | null;
  /** When the team released it from spam (`portico inquiries release`). */
  releasedAt: number | null;
}

export type NewInquiry = Omit<Inquiry, 'attempts' | 'attemptedAt' | 'lastError' | 'messageId' | 'webhookAt' | 'sentAt' | 'nextAttemptAt' | 'duplicateOf' | 'releasedAt'> & {
  /** What makes two inquiries the same lead (screening.ts), compared within DUPLICATE_WINDOW. */
  contentHash: string;
};

/** An inquiry as a delivery attempt sends it: a new one, or one read back from the store. */
export type Deliverable = Omit<NewInquiry, 'contentHash'> & Partial<Pick<Inquiry, 'messageId' | 'webhookAt' | 'attempts' | 'releasedAt'>>;

/** What `create` did: stored the inquiry (as a duplicate of an earlier one, or not), or nothing, its idempotency key being taken. */
export type Created = { stored: true; duplicateOf: string | null } | { stored: false; duplicateOf: null };

export interface CreateOptions {
  /** Its first delivery attempt starts in the same write, as claimDelivery would start it (not for a duplicate). */
  claimAt?: number;
  /**
   * An inquiry with the same content hash received at or after this time makes this one its duplicate:
   * stored with status `duplicate` and the first one's id. The check and the insert are one step, whichever
   * node runs them: of two identical inquiries arriving together, one is the duplicate.
   */
  duplicatesSince?: number;
}

/** The channels an inquiry is sent on: the team's e-mail, the webhook, and the note to its sender. */
export type AttemptChannel = 'mail' | 'webhook' | 'acknowledgement';

/** One try of one channel at one inquiry, kept with it (`portico inquiries show`) and deleted with it. */
export interface DeliveryAttempt {
  channel: AttemptChannel;
  startedAt: number;
  endedAt: number;
  ok: boolean;
  /** What the other end said: the relay's reply ("250 2.0.0 Ok: queued as 4F3X"), "HTTP 204"; null when nothing came. */
  result: string | null;
  /** Why it failed; null when it did not. */
  error: string | null;
}

/** What an attempt delivered, channel by channel: kept even when another channel failed. */
export interface Delivered {
  messageId?: string;
  webhookAt?: number;
}

/**
 * Inquiries selected for deletion: by age (and status), by the submitter's address, or one by id. Addresses,
 * here and wherever a store compares them, compare in their normalized form (normalize-email.ts).
 */
export type InquiryFilter = { createdBefore: number; status?: InquiryStatus } | { email: string } | { id: string };

export interface InquiryStore {
  /** Durably stores the inquiry, unless its idempotency key is taken (then it stores nothing). */
  create(inquiry: NewInquiry, options?: CreateOptions): Promise<Created>;
  get(id: string): Promise<Inquiry | undefined>;
  findByIdempotencyKey(key: string): Promise<Inquiry | undefined>;
  /**
   * Starts a delivery attempt: succeeds for a new inquiry, a failed one, one whose previous attempt
   * began before `staleBefore` (its process died), and a sent one only with `resendSent`.
   * False when the inquiry is spam, missing, or another attempt is under way.
   */
  claimDelivery(id: string, at: number, staleBefore: number, resendSent?: boolean): Promise<boolean>;
  /** Starts the delivery of an inquiry kept as spam, and marks it released; false when it is not (or no longer) spam. */
  release(id: string, at: number): Promise<boolean>;
  /** Every channel has it now; `attempts` are the tries that got it there, recorded in the same write. */
  markSent(id: string, at: number, delivered: Delivered, attempts: readonly DeliveryAttempt[]): Promise<void>;
  /**
   * Some channel failed: what did get through, why the rest did not, and when to try again (null: never);
   * `attempts` are this delivery's tries, recorded in the same write.
   */
  markFailed(id: string, at: number, failure: Delivered & { error: string; nextAttemptAt: number | null }, attempts: readonly DeliveryAttempt[]): Promise<void>;
  /** Records tries made outside a delivery (the acknowledgement). */
  recordAttempts(id: string, attempts: readonly DeliveryAttempt[]): Promise<void>;
  /** Every try at the inquiry, oldest first. */
  attempts(id: string): Promise<DeliveryAttempt[]>;
  /** Pending inquiries no live attempt holds: never attempted, or attempted, before `staleBefore`. */
  listStalled(staleBefore: number, limit: number): Promise<Inquiry[]>;
  /**
   * Marks the inquiry's submitter as acknowledged at `at`, unless an inquiry from the same address was
   * acknowledged after `notSince`: true when this one is to be acknowledged.
   */
  claimAcknowledgement(id: string, email: string, at: number, notSince: number): Promise<boolean>;
  /** Failed inquiries whose next attempt is due at `now`, the longest due first. */
  listDue(now: number, limit: number): Promise<Inquiry[]>;
  /**
   * Newest first (by creation time, then by id, the greater first). `topic` null: general ones only.
   * `since`: created at or after it. `after`: the page after this inquiry (the last one of
   * the previous page), so a long walk holds one page at a time.
   */
  list(query: { status?: InquiryStatus; topic?: Topic | null; email?: string; limit: number; since?: number; after?: Pick<Inquiry, 'createdAt' | 'id'> }): Promise<Inquiry[]>;
  /**
   * The inquiries still to be delivered: pending (an attempt under way or stalled) and failed with a
   * retry ahead, and when the oldest of them arrived. Read from partial indexes, for monitoring.
   */
  backlog(): Promise<{ pending: number; retrying: number; oldestCreatedAt: number | null }>;
  /**
   * Gives the rows an earlier version inserted without a normalized address theirs (a node of that
   * version, during a rolling upgrade); returns how many. Called before an address is looked up.
   */
  fillNormalizedEmails(): Promise<number>;
  /** How many inquiries match. */
  count(filter: InquiryFilter): Promise<number>;
  /** The ids of at most `limit` inquiries that match, oldest first: deletions go a batch at a time. */
  idsMatching(filter: InquiryFilter, limit: number): Promise<string[]>;
  /** Deletes these inquiries and their attempts; returns how many inquiries were there. */
  deleteIds(ids: readonly string[]): Promise<number>;
  /**
   * After an erasure: no earlier copy of deleted rows stays in the engine's files where it can be
   * helped (SQLite's write-ahead log is checkpointed and truncated).
   */
  dropDeletedCopies(): Promise<void>;
}
