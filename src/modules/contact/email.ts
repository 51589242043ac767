// The e-mail the team receives for one inquiry: fixed From, the submitter as Reply-To, the locale.
import type { AppEnv, MailAddress } from '../../config.js';
import type { Inquiry, NewInquiry } from '../../ports/inquiry-store.js';
import type { MailMessage } from '../../ports/mailer.js';

export interface InquiryMailSettings {
  appEnv: AppEnv;
  mailFrom: MailAddress;
  mailTo: MailAddress;
}

const CHANNEL_LABEL: Record<Inquiry['channel'], string> = { web: 'web form', api: 'API', mcp: 'MCP' };

export function composeInquiryEmail(inquiry: NewInquiry, settings: InquiryMailSettings): MailMessage {
  const prefix = settings.appEnv === 'sandbox' ? '[SANDBOX] ' : '';
  return {
    // Copies: the configuration is frozen.
    from: { ...settings.mailFrom },
    to: { ...settings.mailTo },
    replyTo: { name: inquiry.name, address: inquiry.email },
    subject: `${prefix}New inquiry from ${inquiry.name} [${inquiry.locale}]`,
    text: [
      `Name: ${inquiry.name}`,
      `E-mail: ${inquiry.email}`,
      `Language: ${inquiry.locale}`,
      `Channel: ${CHANNEL_LABEL[inquiry.channel]}${inquiry.clientId ? ` (client ${inquiry.clientId})` : ''}`,
      `Received: ${new Date(inquiry.createdAt).toISOString()}`,
      `Inquiry: ${inquiry.id}`,
      '',
      inquiry.message,
      '',
    ].join('\n'),
    headers: { 'Content-Language': inquiry.locale, 'X-Portico-Inquiry-Id': inquiry.id },
  };
}
