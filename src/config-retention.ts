// INQUIRY_RETENTION and SPAM_RETENTION: how long inquiries are kept before the retention job deletes
// them with their outbox copies (GDPR Art. 5(1)(e), storage limitation). `off` keeps everything.
import type { Fail } from './config-values.js';
import { durationMs } from './durations.js';

export interface RetentionSettings {
  /** Every inquiry, delivered or not; undefined: kept until deleted by hand. */
  inquiryMs: number | undefined;
  /** Honeypot spam (D8). */
  spamMs: number | undefined;
}

const DAY_MS = 86_400_000;

/**
 * INQUIRY_RETENTION (365d by default) and SPAM_RETENTION (30d), `off` keeping everything. An inquiry
 * retention shorter than MAIL_RETRY_FOR goes to `fail`: inquiries are kept while they are retried.
 */
export function parseRetention(read: (name: string) => string | undefined, retryForMs: number, fail: Fail): RetentionSettings {
  const inquiryMs = retention('INQUIRY_RETENTION', read('INQUIRY_RETENTION') ?? '365d', fail);
  // An inquiry is never deleted while its delivery is still being retried.
  if (inquiryMs !== undefined && inquiryMs < retryForMs)
    fail('INQUIRY_RETENTION', `must be at least MAIL_RETRY_FOR (${retryForMs / 3_600_000} h): inquiries are kept while they are retried`, read('INQUIRY_RETENTION'));
  return { inquiryMs, spamMs: retention('SPAM_RETENTION', read('SPAM_RETENTION') ?? '30d', fail) };
}

function retention(name: string, raw: string, fail: Fail): number | undefined {
  if (raw === 'off') return undefined;
  const ms = durationMs(raw);
  if (ms === undefined || ms < DAY_MS) return fail(name, 'must be a duration of at least a day, such as 30d or 365d, or off', raw);
  return ms;
}
