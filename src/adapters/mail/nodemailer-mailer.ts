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

// How long a message may wait for a free pooled connection before its inquiry is answered 502.
const SMTP_QUEUE_WAIT_MS = 5_000;
// How long its sending may take once it has one. The socket timeout notices only silence: a server
// that trickles its replies a byte at a time held a message for 21 s against a 1 s socket timeout.
const SMTP_SEND_MS = 10_000;

export function smtpMailer(smtpUrl: string): Mailer {
  const transport = nodemailer.createTransport({ url: smtpUrl, ...SMTP_POOL, ...SMTP_TIMEOUTS });
  // nodemailer's pool queues without limit and gives a queued message to the next connection, so
  // behind a wedged server the sixth inquiry waited for two socket timeouts and the eleventh for
  // three (30 s, test/reliability/upstream-faults.test.ts). It gets at most one message per
  // connection; the rest wait here, and one that finds no connection free in time fails without
  // ever being handed over, so an inquiry stored as failed is never delivered behind our back.
  // With the send deadline below, every message is settled within 5 + 10 s.
  const connections = slots(SMTP_POOL.maxConnections, SMTP_QUEUE_WAIT_MS);
  const sends = deadlines(SMTP_SEND_MS);
  return {
    async send(message) {
      await connections.acquire();
      const abort = sends.start();
      try {
        const mail = compose(message);
        // Raw: nodemailer sends the bytes composeMime built, with the envelope given. On the
        // deadline it closes that message's connection; the others carry on.
        await transport.sendMail({ envelope: mail.envelope, raw: mail.raw, signal: abort.signal });
        return { messageId: mail.messageId };
      } catch (error) {
        throw new MailDeliveryError(describeSmtpError(error));
      } finally {
        sends.end(abort);
        connections.release();
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

/**
 * Aborts the operations that have run `limitMs`, checked twice a second by one timer for all of
 * them: `AbortSignal.timeout` per message cost about 45 us of CPU each, 12% of the pool's throughput.
 */
function deadlines(limitMs: number) {
  // Insertion order is start order, and every operation has the same limit: the expired come first.
  const running = new Map<AbortController, number>();
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = () => {
    const now = Date.now();
    for (const [controller, deadline] of running) {
      if (deadline > now) break;
      running.delete(controller);
      controller.abort(new Error(`not sent within ${limitMs / 1000} s`));
    }
    if (running.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  return {
    start(): AbortController {
      const controller = new AbortController();
      running.set(controller, Date.now() + limitMs);
      sweeper ??= setInterval(sweep, 500).unref();
      return controller;
    },
    end(controller: AbortController): void {
      running.delete(controller);
    },
  };
}

/** A counting semaphore whose waiters give up after `waitMs`, first come first served. */
function slots(size: number, waitMs: number) {
  let free = size;
  const waiting = new Set<() => void>(); // a Set keeps insertion order: the first waiter is served first
  return {
    acquire(): Promise<void> {
      if (free > 0) {
        free--;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const grant = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiting.delete(grant);
          reject(new MailDeliveryError(`no SMTP connection free within ${waitMs / 1000} s`));
        }, waitMs);
        waiting.add(grant);
      });
    },
    release(): void {
      const next = waiting.values().next();
      if (next.done) free++;
      else {
        waiting.delete(next.value);
        next.value(); // the slot passes straight to the next waiter
      }
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
