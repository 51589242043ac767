// Sending one message to the team inbox; adapters are SMTP and the development outbox folder.
import type { MailAddress } from '../config.js';

export interface MailMessage {
  from: MailAddress;
  to: MailAddress;
  replyTo: MailAddress;
  subject: string;
  text: string;
  /** Extra headers whose values we produce ourselves (never submitter text). */
  headers: Record<string, string>;
}

export interface Mailer {
  /** Resolves with the Message-ID once the server accepted it; rejects with MailDeliveryError. */
  send(message: MailMessage): Promise<{ messageId: string }>;
  /** Resolves when the mail server (or outbox folder) is usable; rejects with the reason. */
  verify(): Promise<void>;
  close(): Promise<void>;
}

/** The mail server refused or dropped the message. `reason` is safe to log (no message content). */
export class MailDeliveryError extends Error {
  override name = 'MailDeliveryError';
}
