// Mailers built on nodemailer: pooled SMTP for real delivery, an .eml outbox folder for development.
import { constants } from 'node:fs';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { MailDeliveryError, type Mailer, type MailMessage } from '../../ports/mailer.js';

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
        const info = await transport.sendMail(toNodemailer(message));
        return { messageId: info.messageId };
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
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  // Made once, and again only after a write failed (the folder may have been removed under us).
  let folder: Promise<unknown> | undefined;
  return {
    async send(message) {
      try {
        const info = await transport.sendMail(toNodemailer(message));
        await (folder ??= mkdir(dir, { recursive: true }));
        const name = message.headers['X-Portico-Inquiry-Id'] ?? info.messageId.replace(/[^\w.-]/g, '');
        await writeFile(join(dir, `${name}.eml`), info.message as Buffer);
        return { messageId: info.messageId };
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

// Addresses go in as objects, so nodemailer encodes display names and never parses submitter text
// as an address list; subject and headers are folded and encoded by nodemailer (RFC 2047).
function toNodemailer(message: MailMessage) {
  return {
    from: message.from,
    to: message.to,
    replyTo: message.replyTo,
    subject: message.subject,
    text: message.text,
    headers: message.headers,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

/** What went wrong, without message content: code, SMTP reply code and the server's reply line. */
function describeSmtpError(error: unknown): string {
  const e = error as { code?: string; responseCode?: number; response?: string; message?: string };
  return [e.code, e.responseCode, (e.response ?? e.message ?? 'unknown error').slice(0, 200)].filter(Boolean).join(' ');
}
