// INQUIRY_RETENTION and SPAM_RETENTION: how long inquiries are kept before the retention job deletes
// them with their outbox copies (GDPR Art. 5(1)(e), storage limitation). `off` keeps everything.
import type { Fail } from './values.js';
import { durationMs } from './durations.js';

export interface RetentionSettings {
  /** Every inquiry, delivered or not; undefined: kept until deleted by hand. */
  inquiryMs: number | undefined;
  /** Honeypot spam (D8). */
  spamMs: number | undefined;
}

const DAY_MS = 86_400_000;
/**
 * Ten years: a bound, so that a slip such as 99999999999d stops the start instead of reaching the retention
 * job's date arithmetic (a Date holds 100 million days either side of 1970; that is a thousand times more).
 */
export const MAX_RETENTION_DAYS = 3650;

/**
 * INQUIRY_RETENTION (365d by default), `off` keeping everything, at most MAX_RETENTION_DAYS. A retention
 * shorter than MAIL_RETRY_FOR goes to `fail`: inquiries are kept while they are retried.
 */
export function parseInquiryRetention(read: (name: string) => string | undefined, retryForMs: number, fail: Fail): number | undefined {
  const inquiryMs = retention('INQUIRY_RETENTION', read('INQUIRY_RETENTION') ?? '365d', fail);
  // An inquiry is never deleted while its delivery is still being retried.
  if (inquiryMs !== undefined && inquiryMs < retryForMs)
    fail('INQUIRY_RETENTION', `must be at least MAIL_RETRY_FOR (${retryForMs / 3_600_000} h): inquiries are kept while they are retried`, read('INQUIRY_RETENTION'));
  return inquiryMs;
}

/** SPAM_RETENTION (30d by default), `off` keeping everything, at most MAX_RETENTION_DAYS. */
export function parseSpamRetention(read: (name: string) => string | undefined, fail: Fail): number | undefined {
  return retention('SPAM_RETENTION', read('SPAM_RETENTION') ?? '30d', fail);
}

function retention(name: string, raw: string, fail: Fail): number | undefined {
  if (raw === 'off') return undefined;
  const ms = durationMs(raw);
  if (ms === undefined || ms < DAY_MS) return fail(name, 'must be a duration of at least a day, such as 30d or 365d, or off', raw);
  if (ms > MAX_RETENTION_DAYS * DAY_MS) return fail(name, `must be at most ${MAX_RETENTION_DAYS}d (ten years), or off`, raw);
  return ms;
}
