// Screening (D20): the reasons an inquiry may be spam, found on this node without the network, and the
// fingerprint that tells a duplicate of an earlier inquiry.
import { hash } from 'node:crypto';
import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';
import type { ScreeningSettings } from '../../config/screening.js';
import { normalizeEmail } from '../../ports/normalize-email.js';
import type { SpamReason } from '../../ports/spam-check.js';
import { foldTerm } from './term-fold.js';

export interface Screened {
  name: string;
  email: string;
  message: string;
  /** The honeypot field; only bots fill it. */
  website?: string | undefined;
}

/** The local checks, built once: the disposable-domain list is read into a set, the terms into one expression. */
export function localScreening(settings: ScreeningSettings): (inquiry: Screened) => SpamReason[] {
  const disposable = settings.enabled ? disposableEmailBlocklistSet() : undefined;
  const blocked = settings.enabled && settings.blockedTerms.length ? termsPattern(settings.blockedTerms) : undefined;
  return (inquiry) => {
    const reasons: SpamReason[] = [];
    if (inquiry.website?.trim()) reasons.push('honeypot');
    if (!settings.enabled) return reasons;
    if (isDisposable(disposable!, inquiry.email)) reasons.push('disposable-address');
    if (countLinks(inquiry.message) > settings.maxLinks) reasons.push('links');
    if (blocked && (blocked.test(foldTerm(inquiry.message)) || blocked.test(foldTerm(inquiry.name)))) reasons.push('blocked-term');
    return reasons;
  };
}

/** The address's domain, or a domain it is under (`x.mailinator.com`), is a throwaway provider's. */
function isDisposable(list: ReadonlySet<string>, email: string): boolean {
  const address = normalizeEmail(email);
  const labels = address.slice(address.lastIndexOf('@') + 1).split('.');
  for (let i = 0; i < labels.length - 1; i++) if (list.has(labels.slice(i).join('.'))) return true;
  return false;
}

// A link is what a reader's mail program would make one of: a scheme, or `www.`. Bare names such as
// example.com are left out: "e.g." and "Node.js" are not links.
const LINK = /(?<![\p{L}\p{N}])(?:(?:https?|ftp):\/\/|www\.)[^\s<>"'()[\]]+/giu;

/** How many links the text holds; fullwidth letters (`ｈｔｔｐ`) count as their ASCII selves. */
export function countLinks(text: string): number {
  return text.normalize('NFKC').match(LINK)?.length ?? 0;
}

/** One expression for every term, on word boundaries of any script; a term's inner spaces match any run of white space. */
function termsPattern(terms: readonly string[]): RegExp {
  const alternatives = terms.map((term) =>
    foldTerm(term)
      .trim()
      .split(/\s+/)
      .map((word) => word.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
      .join('\\s+'),
  );
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'u');
}

/**
 * What makes two inquiries the same lead: the address as stores compare it, and the message with case
 * and white space folded (a trailing space, a line wrapped anew). The name and the language are not in
 * it: a person who corrects a typo in their name has still sent the same inquiry.
 */
export function contentHash(email: string, message: string): string {
  const text = message.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  return hash('sha256', JSON.stringify([normalizeEmail(email), text]), 'hex');
}
