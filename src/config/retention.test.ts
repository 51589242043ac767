// INQUIRY_RETENTION and SPAM_RETENTION: defaults, off, and the one-line refusals.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const DAY = 86_400_000;
const problem = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
  }
  throw new Error('expected a ConfigError');
};

describe('INQUIRY_RETENTION and SPAM_RETENTION', () => {
  it('keep inquiries a year and spam 30 days by default', () => {
    expect(loadConfig({}).retention).toEqual({ inquiryMs: 365 * DAY, spamMs: 30 * DAY });
  });

  it('take durations of a day or more, or off', () => {
    expect(loadConfig({ INQUIRY_RETENTION: '90d', SPAM_RETENTION: 'off' }).retention).toEqual({ inquiryMs: 90 * DAY, spamMs: undefined });
    expect(loadConfig({ INQUIRY_RETENTION: 'off', SPAM_RETENTION: '24h' }).retention).toEqual({ inquiryMs: undefined, spamMs: DAY });
  });

  it('refuse anything shorter than a day, or not a duration, naming the setting', () => {
    expect(problem({ SPAM_RETENTION: '12h' })).toBe('SPAM_RETENTION must be a duration of at least a day, such as 30d or 365d, or off (got "12h")');
    expect(problem({ INQUIRY_RETENTION: 'forever' })).toBe('INQUIRY_RETENTION must be a duration of at least a day, such as 30d or 365d, or off (got "forever")');
  });

  it('refuse more than ten years, naming the setting and the bound, both in one start', () => {
    expect(loadConfig({ INQUIRY_RETENTION: '3650d', SPAM_RETENTION: '87600h' }).retention).toEqual({ inquiryMs: 3650 * DAY, spamMs: 3650 * DAY });
    expect(problem({ INQUIRY_RETENTION: '99999999999d', SPAM_RETENTION: '3651d' })).toBe(
      'INQUIRY_RETENTION must be at most 3650d (ten years), or off (got "99999999999d")\n' + 'SPAM_RETENTION must be at most 3650d (ten years), or off (got "3651d")',
    );
  });

  it('never delete an inquiry while its delivery may still be retried', () => {
    expect(problem({ INQUIRY_RETENTION: '2d', MAIL_RETRY_FOR: '7d' })).toBe('INQUIRY_RETENTION must be at least MAIL_RETRY_FOR (168 h): inquiries are kept while they are retried (got "2d")');
  });
});
