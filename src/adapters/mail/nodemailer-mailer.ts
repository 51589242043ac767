// Mailers: nodemailer's SMTP pool for real delivery, an .eml outbox folder for development; both
// carry the bytes composeMime builds.
import { constants } from 'node:fs';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { domainToASCII } from 'node:url';
import nodemailer from 'nodemailer';
import { MailDeliveryError, type Mailer, type MailMessage } from '../../ports/mailer.js';
import { composeMime } from './mime.js';

const SMTP_TIMEOUTS = { connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000 };

// Connections are kept for as many messages as the server allows (nodemailer reconnects when the
// server closes one): its default of 100 messages a connection made every 100th inquiry wait for a
// new SMTP session, the 100 ms p99 of the bench (docs/performance.md).
const SMTP_POOL = { pool: true, maxConnections: 5, maxMessages: Infinity };

export function smtpMailer(smtpUrl: string): Mailer {
  const transport = nodemailer.createTransport({ url: smtpUrl, ...SMTP_POOL, ...SMTP_TIMEOUTS });
  return {
    async send(message) {
      try {
        const mail = compose(message);
        // Raw: nodemailer sends the bytes composeMime built, with the envelope given.
        await transport.sendMail({ envelope: mail.envelope, raw: mail.raw });
        return { messageId: mail.messageId };
      } catch (error) {
        throw new MailDeliveryError(describeSmtpError(error));
      }
    },
    async verify() {
      await transport.verify();
    },
    async close() {
      transport.close();
    },
  };
}

/** Writes each message to `<dir>/<inquiry id>.eml` instead of sending it (no SMTP_URL). */
export function outboxMailer(dir: string): Mailer {
  // Made once, and again only after a write failed (the folder may have been removed under us).
  let folder: Promise<unknown> | undefined;
  return {
    async send(message) {
      try {
        const mail = compose(message);
        await (folder ??= mkdir(dir, { recursive: true }));
        const name = message.headers['X-Portico-Inquiry-Id'] ?? mail.messageId.replace(/[^\w.-]/g, '');
        await writeFile(join(dir, `${name}.eml`), mail.raw);
        return { messageId: mail.messageId };
      } catch (error) {
        folder = undefined;
        throw new MailDeliveryError(`outbox: ${(error as Error).message}`);
      }
    },
    async verify() {
      await mkdir(dir, { recursive: true });
      await access(dir, constants.W_OK);
    },
    async close() {},
  };
}

/** The message's bytes, with a Message-ID of its own under the sender's domain (RFC 5322 section 3.6.4). */
function compose(message: MailMessage) {
  const domain = message.from.address.slice(message.from.address.lastIndexOf('@') + 1);
  return composeMime(message, { messageId: `<${randomUUID()}@${domainToASCII(domain) || 'portico.invalid'}>`, date: new Date() });
}

/** What went wrong, without message content: code, SMTP reply code and the server's reply line. */
function describeSmtpError(error: unknown): string {
  const e = error as { code?: string; responseCode?: number; response?: string; message?: string };
  return [e.code, e.responseCode, (e.response ?? e.message ?? 'unknown error').slice(0, 200)].filter(Boolean).join(' ');
}
