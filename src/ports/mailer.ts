// Sending one message; adapters are SMTP (nodemailer's pool) and the development outbox folder.
import type { MailAddress } from '../config/config.js';

export interface MailMessage {
  from: MailAddress;
  to: MailAddress;
  replyTo: MailAddress;
  subject: string;
  text: string;
  /** The same on every attempt, so a copy delivered twice is recognisably one message (RFC 5322 section 3.6.4). */
  messageId: string;
  /** When the message was first accepted, not when this attempt runs (RFC 5322 section 3.6.1). */
  date: Date;
  /** Extra headers whose values we produce ourselves (never submitter text). */
  headers: Record<string, string>;
}

export interface Mailer {
  /**
   * Resolves once the server accepted the message, with what it said ("250 2.0.0 Ok: queued as 4F3X", or
   * where the outbox folder keeps it); rejects with MailDeliveryError. An aborted `signal` stops the
   * attempt: a message still waiting is never handed over, one in transit has its connection closed.
   */
  send(message: MailMessage, signal?: AbortSignal): Promise<string>;
  /** Resolves when the mail server (or outbox folder) is usable: it connects and signs in; rejects with the reason. */
  verify(): Promise<void>;
  /**
   * The process is stopping: every send still waiting gives up now with a MailDeliveryError (not
   * permanent), so that its request is answered and its inquiry left to the retry job.
   */
  abandon(): void;
  close(): Promise<void>;
}

/**
 * The mail server refused or dropped the message. `reason` is safe to log (no message content).
 * `permanent`: the server refused this message for good (a 5xx to its envelope or data); trying again
 * cannot help. Anything else (no connection, a timeout, a 4xx, a sign-in the operator can fix) may.
 */
export class MailDeliveryError extends Error {
  override name = 'MailDeliveryError';
  constructor(
    reason: string,
    readonly permanent = false,
    /** The server's reply to the refused command ("451 4.3.0 Try again later"), when one came. */
    readonly reply?: string,
  ) {
    super(reason);
  }
}
