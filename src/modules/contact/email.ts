// The e-mail the team receives for one inquiry: fixed From, the submitter as Reply-To, labels in the inquiry's locale.
import { domainToASCII } from 'node:url';
import type { AppEnv, MailAddress } from '../../config/config.js';
import type { Deliverable, Topic } from '../../ports/inquiry-store.js';
import type { MailMessage } from '../../ports/mailer.js';
import { TEAM_EMAIL } from './email-i18n.js';
import type { Locale } from '../common/locales.js';
import { TOPIC_WORDS, type TopicWords } from '../common/topics.js';

export interface InquiryMailSettings {
  appEnv: AppEnv;
  mailFrom: MailAddress;
  /** The team's mailbox for a general inquiry. */
  mailTo: MailAddress;
  /** The team's mailbox for each topic: MAIL_TO_SALES, ..., else MAIL_TO. */
  mailToByTopic: Record<Topic, MailAddress>;
}

/** The header that names the reasons screening gave a delivered inquiry (D20), for the team's mail filters. */
export const SPAM_REASONS_HEADER = 'X-Portico-Spam-Reasons';
/** The header that names an inquiry's topic, the same in every locale, for the team's mail filters. */
export const TOPIC_HEADER = 'X-Portico-Topic';

/**
 * The team's e-mail for an inquiry: From MAIL_FROM, to the topic's mailbox, Reply-To the submitter, labels in
 * its locale (English for one this version lacks), [SANDBOX] before the subject in the sandbox, the topic as
 * the API names it ("[demo]"), and one Message-ID for every attempt. An inquiry screening gave reasons is
 * marked: a tag in its language before the subject ("[Possible spam]"), its reasons in a line and in
 * X-Portico-Spam-Reasons. One the team released from spam is not: the team has judged it.
 */
export function composeInquiryEmail(inquiry: Deliverable, settings: InquiryMailSettings): MailMessage {
  // A stored locale may be one this version no longer speaks.
  const words = (TEAM_EMAIL as Partial<Record<string, (typeof TEAM_EMAIL)[Locale]>>)[inquiry.locale] ?? TEAM_EMAIL.en;
  const marked = isMarked(inquiry);
  const prefix = (settings.appEnv === 'sandbox' ? '[SANDBOX] ' : '') + (marked ? `${words.possibleSpam} ` : '');
  const client = inquiry.clientId ? ` (${words.client} ${inquiry.clientId})` : '';
  const reasons = inquiry.spamReasons.join(', ');
  const topic = inquiry.topic;
  const topicWords = (TOPIC_WORDS as Partial<Record<string, TopicWords>>)[inquiry.locale] ?? TOPIC_WORDS.en;
  return {
    // Copies: the configuration is frozen.
    from: { ...settings.mailFrom },
    to: { ...teamMailbox(topic, settings) },
    replyTo: { name: inquiry.name, address: inquiry.email },
    // The topic as the API names it, in every locale: a filter on the subject needs no translation.
    subject: `${prefix}${topic ? `[${topic}] ` : ''}${words.subject(inquiry.name)} [${inquiry.locale}]`,
    text: [
      `${words.name}: ${inquiry.name}`,
      `${words.email}: ${inquiry.email}`,
      `${topicWords.label}: ${topic ? topicWords.names[topic] : topicWords.general}`,
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
    headers: {
      'Content-Language': inquiry.locale,
      'X-Portico-Inquiry-Id': inquiry.id,
      ...(topic ? { [TOPIC_HEADER]: topic } : {}),
      ...(marked ? { [SPAM_REASONS_HEADER]: reasons } : {}),
    },
  };
}

/** Where the team answers inquiries on this topic (null: a general one). */
export function teamMailbox(topic: Topic | null, settings: Pick<InquiryMailSettings, 'mailTo' | 'mailToByTopic'>): MailAddress {
  return topic ? settings.mailToByTopic[topic] : settings.mailTo;
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
