// The e-mail the team receives for one inquiry: fixed From, the submitter as Reply-To, labels in the inquiry's locale.
import { domainToASCII } from 'node:url';
import type { AppEnv, MailAddress } from '../../config/config.js';
import type { Deliverable } from '../../ports/inquiry-store.js';
import type { MailMessage } from '../../ports/mailer.js';
import { TEAM_EMAIL } from './email-i18n.js';
import type { Locale } from '../common/locales.js';

export interface InquiryMailSettings {
  appEnv: AppEnv;
  mailFrom: MailAddress;
  mailTo: MailAddress;
}

/** The header that names the reasons screening gave a delivered inquiry (D20), for the team's mail filters. */
export const SPAM_REASONS_HEADER = 'X-Portico-Spam-Reasons';

/**
 * The team's e-mail for an inquiry: From MAIL_FROM, Reply-To the submitter, labels in its locale (English for
 * one this version lacks), [SANDBOX] before the subject in the sandbox, and one Message-ID for every attempt.
 * An inquiry screening gave reasons is marked: "[Possible spam]" before the subject, its reasons in a line
 * and in X-Portico-Spam-Reasons. One the team released from spam is not: the team has judged it.
 */
export function composeInquiryEmail(inquiry: Deliverable, settings: InquiryMailSettings): MailMessage {
  // A stored locale may be one this version no longer speaks.
  const words = (TEAM_EMAIL as Partial<Record<string, (typeof TEAM_EMAIL)[Locale]>>)[inquiry.locale] ?? TEAM_EMAIL.en;
  const marked = isMarked(inquiry);
  const prefix = (settings.appEnv === 'sandbox' ? '[SANDBOX] ' : '') + (marked ? `${words.possibleSpam} ` : '');
  const client = inquiry.clientId ? ` (${words.client} ${inquiry.clientId})` : '';
  const reasons = inquiry.spamReasons.join(', ');
  return {
    // Copies: the configuration is frozen.
    from: { ...settings.mailFrom },
    to: { ...settings.mailTo },
    replyTo: { name: inquiry.name, address: inquiry.email },
    subject: `${prefix}${words.subject(inquiry.name)} [${inquiry.locale}]`,
    text: [
      `${words.name}: ${inquiry.name}`,
      `${words.email}: ${inquiry.email}`,
      `${words.language}: ${inquiry.locale}`,
      `${words.channel}: ${words.channels[inquiry.channel]}${client}`,
      `${words.received}: ${new Date(inquiry.createdAt).toISOString()}`,
      `${words.inquiry}: ${inquiry.id}`,
      ...(marked ? [`${words.spamReasons}: ${reasons}`] : []),
      '',
      // One kind of line break: a bare CR is a line break to some readers and none to others.
      inquiry.message.replace(/\r\n?/g, '\n'),
      '',
    ].join('\n'),
    messageId: inquiryMessageId(inquiry.id, settings.mailFrom.address),
    date: new Date(inquiry.createdAt),
    headers: { 'Content-Language': inquiry.locale, 'X-Portico-Inquiry-Id': inquiry.id, ...(marked ? { [SPAM_REASONS_HEADER]: reasons } : {}) },
  };
}

/** Delivered with reasons screening gave, and not released by the team: the team is told it may be spam. */
export function isMarked(inquiry: Pick<Deliverable, 'spamReasons' | 'releasedAt'>): boolean {
  return inquiry.spamReasons.length > 0 && (inquiry.releasedAt ?? null) === null;
}

/** `<inquiry-id@sender's domain>`: one Message-ID for every attempt at one inquiry (D15, RFC 5322 section 3.6.4). */
export function inquiryMessageId(id: string, from: string): string {
  const domain = domainToASCII(from.slice(from.lastIndexOf('@') + 1)) || 'portico.invalid';
  return `<${id}@${domain}>`;
}
