// MAIL_ACKNOWLEDGE: a short note to the submitter, in their language, that the inquiry arrived. Only for
// submitters who proved something (a passed Turnstile check, or a Bearer token), and at most one a day
// per address, so that Portico can never be made to mail strangers.
import type { Inquiry, NewInquiry } from '../../ports/inquiry-store.js';
import { MailDeliveryError, type MailMessage } from '../../ports/mailer.js';
import { tryOnce, type DeliveryDeps } from './delivery.js';
import { inquiryMessageId, teamMailbox, TOPIC_HEADER } from './email.js';
import { ACKNOWLEDGEMENT } from './email-i18n.js';
import type { Locale } from '../common/locales.js';

export const ACKNOWLEDGE_EVERY_MS = 86_400_000;

/** Sends the note when this inquiry's address had none in the last day; never throws (it is a courtesy). */
export async function acknowledge(deps: DeliveryDeps, inquiry: NewInquiry): Promise<void> {
  if (!deps.mailer) return;
  try {
    const now = deps.clock.now();
    if (!(await deps.inquiries.claimAcknowledgement(inquiry.id, inquiry.email, now, now - ACKNOWLEDGE_EVERY_MS))) return;
    const { thrown, ...tried } = await tryOnce(deps.clock, 'acknowledgement', () => deps.mailer!.send(acknowledgementEmail(inquiry, deps)));
    // Kept with the inquiry's other tries (`portico inquiries show`); a store that cannot write loses only this line.
    await deps.inquiries.recordAttempts(inquiry.id, [tried]).catch((error: unknown) => deps.log.warn({ err: error, inquiry: inquiry.id }, 'acknowledgement attempt not recorded'));
    if (!tried.ok) throw thrown;
  } catch (error) {
    if (!(error instanceof MailDeliveryError)) deps.log.error({ err: error, inquiry: inquiry.id }, 'acknowledgement failed');
    else deps.log.warn({ inquiry: inquiry.id, reason: error.message }, 'acknowledgement not delivered (it is not retried)');
  }
}

function acknowledgementEmail(inquiry: Pick<Inquiry, 'id' | 'name' | 'email' | 'locale' | 'createdAt' | 'topic'>, deps: Pick<DeliveryDeps, 'mail'>): MailMessage {
  // A stored locale may be one this version no longer speaks.
  const words = (ACKNOWLEDGEMENT as Partial<Record<string, (typeof ACKNOWLEDGEMENT)[Locale]>>)[inquiry.locale] ?? ACKNOWLEDGEMENT.en;
  const { mailFrom } = deps.mail;
  const id = inquiry.id;
  const topic = inquiry.topic;
  return {
    from: { ...mailFrom },
    to: { name: inquiry.name, address: inquiry.email },
    // A reply reaches the team that answers the inquiry, not the unattended sender.
    replyTo: { ...teamMailbox(topic, deps.mail) },
    subject: words.subject,
    text: words.body(inquiry.name, mailFrom.name || mailFrom.address),
    messageId: inquiryMessageId(`${id}.ack`, mailFrom.address),
    date: new Date(inquiry.createdAt),
    // RFC 3834 section 5: an automatic reply, which autoresponders must not answer.
    headers: { 'Auto-Submitted': 'auto-replied', 'Content-Language': inquiry.locale, ...(topic ? { [TOPIC_HEADER]: topic } : {}) },
  };
}
