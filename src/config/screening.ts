// Screening leads (D20): DUPLICATE_WINDOW, SPAM_SCREEN, SPAM_HOLD, SPAM_MAX_LINKS, SPAM_BLOCKED_TERMS and
// Akismet's AKISMET_KEY and AKISMET_URL.
import { foldTerm } from '../modules/contact/term-fold.js';
import { SPAM_REASONS, type SpamReason } from '../ports/spam-check.js';
import { durationMs } from './durations.js';
import { parseBaseUrl, parseSwitch, type Fail } from './values.js';

export interface ScreeningSettings {
  /** SPAM_SCREEN: off leaves only the honeypot (D8), which no person fills. */
  enabled: boolean;
  /** SPAM_HOLD: the reasons that keep an inquiry as spam; the others deliver it marked. */
  hold: readonly SpamReason[];
  /** SPAM_MAX_LINKS: more links than this is the reason `links`. */
  maxLinks: number;
  /** SPAM_BLOCKED_TERMS, as the operator wrote them. */
  blockedTerms: readonly string[];
  /** DUPLICATE_WINDOW: how long an identical inquiry counts as a duplicate; 0: never. */
  duplicateWindowMs: number;
  /** Akismet's comment-check, when AKISMET_KEY is set. */
  akismet: { key: string; url: string } | undefined;
}

export const DEFAULT_HOLD: readonly SpamReason[] = ['honeypot', 'links', 'blocked-term', 'akismet'];
export const AKISMET_URL = 'https://rest.akismet.com';
// A message of 5,000 characters holds fewer than a thousand words: more links than that is no setting.
const MAX_LINKS = 1_000;

type Read = (name: string) => string | undefined;

/** Reads one setting, noting its mistake and going on with `standIn` (config.ts), so that one start names them all. */
type Setting = <T>(parse: () => T, standIn: T) => T;

/**
 * The screening settings; each bad value goes to `fail`. DUPLICATE_WINDOW may not outlast INQUIRY_RETENTION
 * (`inquiryRetentionMs`, undefined when inquiries are kept for ever): the first of two inquiries must still be there.
 */
export function parseScreening(read: Read, inquiryRetentionMs: number | undefined, fail: Fail, setting: Setting): ScreeningSettings {
  const enabled = setting(() => parseSwitch('SPAM_SCREEN', read('SPAM_SCREEN') ?? 'on', ['on', 'off'], fail) === 'on', true);
  const holdRaw = read('SPAM_HOLD');
  const hold = holdRaw === undefined ? DEFAULT_HOLD : setting(() => parseHold(holdRaw, fail), DEFAULT_HOLD);
  const maxLinks = setting(() => parseMaxLinks(read('SPAM_MAX_LINKS') ?? '5', fail), 5);
  const termsRaw = read('SPAM_BLOCKED_TERMS');
  const blockedTerms = termsRaw === undefined ? [] : setting(() => parseTerms(termsRaw, fail), []);
  const duplicateWindowMs = setting(() => parseDuplicateWindow(read('DUPLICATE_WINDOW') ?? '24h', inquiryRetentionMs, fail), 0);
  const key = read('AKISMET_KEY');
  const url = setting(() => parseBaseUrl('AKISMET_URL', read('AKISMET_URL') ?? AKISMET_URL, fail), AKISMET_URL);
  return { enabled, hold, maxLinks, blockedTerms, duplicateWindowMs, akismet: key === undefined ? undefined : { key, url } };
}

function parseMaxLinks(raw: string, fail: Fail): number {
  return /^\d+$/.test(raw) && Number(raw) <= MAX_LINKS ? Number(raw) : fail('SPAM_MAX_LINKS', `must be an integer from 0 to ${MAX_LINKS}`, raw);
}

function parseDuplicateWindow(raw: string, inquiryRetentionMs: number | undefined, fail: Fail): number {
  const ms = durationMs(raw) ?? fail('DUPLICATE_WINDOW', 'must be a duration such as 10m, 24h or 7d, or 0s to turn the rule off', raw);
  if (inquiryRetentionMs !== undefined && ms > inquiryRetentionMs) fail('DUPLICATE_WINDOW', 'must be at most INQUIRY_RETENTION: an inquiry is compared with those still kept', raw);
  return ms;
}

function parseHold(raw: string, fail: Fail): SpamReason[] {
  // `none` holds nothing back: every reason marks, none keeps.
  if (raw.toLowerCase() === 'none') return [];
  return raw.split(',').map((item) => {
    const reason = item.trim().toLowerCase();
    if (!(SPAM_REASONS as readonly string[]).includes(reason)) fail('SPAM_HOLD', `must be a comma-separated list of ${SPAM_REASONS.join(', ')}, or none`, item.trim());
    return reason as SpamReason;
  });
}

function parseTerms(raw: string, fail: Fail): string[] {
  const terms = raw.split(',').map((term) => term.trim());
  if (terms.some((term) => term === '')) fail('SPAM_BLOCKED_TERMS', 'must be a comma-separated list of terms, none of them empty', raw);
  // A term of only marks and characters that show nothing (U+200B, U+00AD, U+2060) is compared as
  // nothing, which every inquiry holds: it would mark them all.
  const blank = terms.findIndex((term) => foldTerm(term).trim() === '');
  if (blank >= 0) {
    // Code points, not graphemes: what the operator must find and remove is each invisible one.
    const codePoints = Array.from(terms[blank]!, (char) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');
    fail('SPAM_BLOCKED_TERMS', `must hold terms that show something: term ${blank + 1} is only marks or characters that show nothing, and would match every inquiry`, codePoints);
  }
  return terms;
}
