// Spam screening's vocabulary (D20), and a remote verdict (Akismet) as a port the contact module can call.

/** Every reason screening can give, in the order they are reported. */
export const SPAM_REASONS = ['honeypot', 'disposable-address', 'links', 'blocked-term', 'akismet'] as const;
export type SpamReason = (typeof SPAM_REASONS)[number];

/** What a remote service is asked about an inquiry: its text, and what the request said of its sender. */
export interface SpamCheckInput {
  name: string;
  email: string;
  message: string;
  locale: string;
  remoteIp: string;
  userAgent: string | undefined;
  referrer: string | undefined;
}

export interface SpamCheck {
  /** True when the service judges the inquiry spam; throws SpamCheckUnavailable when it gives no verdict. */
  isSpam(input: SpamCheckInput): Promise<boolean>;
  /** Lets go of kept-alive connections, at shutdown. */
  close(): void;
}

/** The service gave no verdict (unreachable, slow, an error answer): the inquiry goes on unjudged. */
export class SpamCheckUnavailable extends Error {
  override name = 'SpamCheckUnavailable';
}
