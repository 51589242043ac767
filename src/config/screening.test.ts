// DUPLICATE_WINDOW, SPAM_* and AKISMET_*: defaults, and the one-line refusals a start gives together.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

/** What a start with `env` says: one ConfigError, a line per mistake. */
const refusal = (lines: string[]) => new ConfigError(lines);

describe('the screening settings', () => {
  it('screen by default: duplicates within a day, the strong reasons held, five links allowed, no terms, no Akismet', () => {
    expect(loadConfig({}).screening).toEqual({
      enabled: true,
      hold: ['honeypot', 'links', 'blocked-term', 'akismet'],
      maxLinks: 5,
      blockedTerms: [],
      duplicateWindowMs: 86_400_000,
      akismet: undefined,
    });
  });

  it('read every setting as an operator writes it', () => {
    const env = {
      SPAM_SCREEN: 'OFF',
      SPAM_HOLD: ' links , Disposable-Address',
      SPAM_MAX_LINKS: '0',
      SPAM_BLOCKED_TERMS: 'casino, free  money ,Viagra',
      DUPLICATE_WINDOW: '0s',
      AKISMET_KEY: 'abc123',
      AKISMET_URL: 'http://127.0.0.1:9/akismet/',
    };
    expect(loadConfig(env).screening).toEqual({
      enabled: false,
      hold: ['links', 'disposable-address'],
      maxLinks: 0,
      blockedTerms: ['casino', 'free  money', 'Viagra'],
      duplicateWindowMs: 0,
      akismet: { key: 'abc123', url: 'http://127.0.0.1:9/akismet' },
    });
    expect(loadConfig({ SPAM_HOLD: 'none' }).screening.hold).toEqual([]);
  });

  it('refuse an unknown reason, a count that is not one, an empty term and a window past retention, all in one start', () => {
    expect(() => loadConfig({ SPAM_HOLD: 'honeypot,link', SPAM_MAX_LINKS: 'five', SPAM_BLOCKED_TERMS: 'casino,,bonus', DUPLICATE_WINDOW: '400d' })).toThrow(
      refusal([
        'SPAM_HOLD must be a comma-separated list of honeypot, disposable-address, links, blocked-term, akismet, or none (got "link")',
        'SPAM_MAX_LINKS must be an integer from 0 to 1000 (got "five")',
        'SPAM_BLOCKED_TERMS must be a comma-separated list of terms, none of them empty (got "casino,,bonus")',
        'DUPLICATE_WINDOW must be at most INQUIRY_RETENTION: an inquiry is compared with those still kept (got "400d")',
      ]),
    );
  });

  it('refuse a term that folds to nothing, naming its place and its code points: it would mark every inquiry', () => {
    for (const [terms, position, codePoints] of [
      ['casino,\u200b', 2, 'U+200B'],
      ['\u00ad, bonus', 1, 'U+00AD'],
      ['casino, bonus, \u2060\u200b', 3, 'U+2060 U+200B'],
      ['\u0301', 1, 'U+0301'],
    ] as const) {
      expect(() => loadConfig({ SPAM_BLOCKED_TERMS: terms })).toThrow(
        refusal([`SPAM_BLOCKED_TERMS must hold terms that show something: term ${position} is only marks or characters that show nothing, and would match every inquiry (got "${codePoints}")`]),
      );
    }
    expect(loadConfig({ SPAM_BLOCKED_TERMS: 'ca\u200bsino, é' }).screening.blockedTerms).toEqual(['ca\u200bsino', 'é']);
  });

  it('refuse a window that is no duration, a switch that is neither on nor off, and an Akismet address that is not http(s)', () => {
    expect(() => loadConfig({ DUPLICATE_WINDOW: '1 day', SPAM_SCREEN: 'yes', AKISMET_URL: 'ftp://akismet.example' })).toThrow(
      refusal([
        'SPAM_SCREEN must be on or off (got "yes")',
        'DUPLICATE_WINDOW must be a duration such as 10m, 24h or 7d, or 0s to turn the rule off (got "1 day")',
        'AKISMET_URL must use http:// or https:// (got "ftp://akismet.example")',
      ]),
    );
  });
});
