// The inquiries kept before any e-mail is sent: the store contract every engine implements.

export type InquiryStatus = 'pending' | 'sent' | 'failed' | 'spam';
export type InquiryChannel = 'web' | 'api' | 'mcp';

export interface Inquiry {
  id: string;
  createdAt: number;
  status: InquiryStatus;
  channel: InquiryChannel;
  name: string;
  email: string;
  message: string;
  locale: string;
  clientId: string | null;
  remoteIp: string;
  idempotencyKey: string | null;
  /** SHA-256 of the validated fields, to tell a retry from a reuse of its Idempotency-Key. */
  fingerprint: string;
  attempts: number;
  /** When the latest delivery attempt started. */
  attemptedAt: number | null;
  lastError: string | null;
  messageId: string | null;
  sentAt: number | null;
}

export type NewInquiry = Omit<Inquiry, 'attempts' | 'attemptedAt' | 'lastError' | 'messageId' | 'sentAt'>;

export interface InquiryStore {
  /**
   * Durably stores the inquiry; returns false (storing nothing) when its idempotency key is taken.
   * With `claimAt`, its first delivery attempt starts in the same write, as claimDelivery would start it.
   */
  create(inquiry: NewInquiry, claimAt?: number): Promise<boolean>;
  get(id: string): Promise<Inquiry | undefined>;
  findByIdempotencyKey(key: string): Promise<Inquiry | undefined>;
  /**
   * Starts a delivery attempt: succeeds for a new inquiry, a failed one, one whose previous attempt
   * began before `staleBefore` (its process died), and a sent one only with `resendSent`.
   * False when the inquiry is spam, missing, or another attempt is under way.
   */
  claimDelivery(id: string, at: number, staleBefore: number, resendSent?: boolean): Promise<boolean>;
  markSent(id: string, at: number, messageId: string): Promise<void>;
  markFailed(id: string, at: number, error: string): Promise<void>;
  /** Pending inquiries no live attempt holds: never attempted, or attempted, before `staleBefore`. */
  listStalled(staleBefore: number, limit: number): Promise<Inquiry[]>;
  /**
   * Newest first. `since`: created at or after it. `after`: the page after this inquiry (the last one of
   * the previous page), so a long walk holds one page at a time.
   */
  list(query: { status?: InquiryStatus; limit: number; since?: number; after?: Pick<Inquiry, 'createdAt' | 'id'> }): Promise<Inquiry[]>;
  /** Deletes inquiries created before `before`; returns how many. */
  purgeCreatedBefore(before: number): Promise<number>;
  ping(): Promise<void>;
}
