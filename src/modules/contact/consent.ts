// The record of the consent an inquiry carries (GDPR Art. 7(1): the controller must be able to show that
// the person consented): when, where, to which policy and to which words. The words are kept as their
// SHA-256, which docs/contact.md gives for every text Portico shows, so that a record names its text.
import { hash } from 'node:crypto';
import type { ConsentDoor, ConsentRecord, InquiryChannel } from '../../ports/inquiry-store.js';
import { FORM_WORDS } from '../contact-form/form-words.js';
import { LOCALES, type Locale } from '../common/locales.js';

/**
 * The consent words the form and the app show in a locale, as the person reads them: the policy's name in
 * place of its link. An API client that shows these words (docs/contact.md) need not send them.
 */
export function consentWords(locale: Locale): string {
  const words = FORM_WORDS[locale];
  return words.privacy.replace('{policy}', words.privacyPolicy);
}

/** The digest that names a consent text: SHA-256 of its UTF-8 bytes, in hex. */
export const consentTextSha256 = (text: string): string => hash('sha256', text, 'hex');

// Each locale's words never change while a node runs: their digests are taken once, not per inquiry.
const LOCALE_DIGESTS = Object.fromEntries(LOCALES.map((locale) => [locale, consentTextSha256(consentWords(locale))])) as Record<Locale, string>;

/**
 * The record of an inquiry received at `at` through `channel`. On MCP the app sends the words it showed
 * beside its checkbox and a model's call does not (the tool's description asks it to leave them out):
 * that is how the two doors are told apart.
 */
export function consentRecord(request: { locale: Locale; consentText?: string | undefined }, channel: InquiryChannel, at: number, policyUrl: string | undefined): ConsentRecord {
  return {
    at,
    door: doorOf(channel, request.consentText !== undefined),
    policyUrl: policyUrl ?? null,
    textSha256: request.consentText === undefined ? LOCALE_DIGESTS[request.locale] : consentTextSha256(request.consentText),
  };
}

function doorOf(channel: InquiryChannel, wordsSent: boolean): ConsentDoor {
  if (channel === 'web') return 'form';
  if (channel === 'api') return 'api';
  return wordsSent ? 'app' : 'tool';
}
