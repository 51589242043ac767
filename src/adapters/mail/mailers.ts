// Mailers: SMTP on kept-open connections for real delivery, an .eml outbox folder for development;
// both carry the bytes composeMime builds.
import { constants } from 'node:fs';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MailDeliveryError, type Mailer, type MailMessage } from '../../ports/mailer.js';
import { PRIVATE_FILE, PRIVATE_FOLDER } from '../private-files.js';
import { asciiDomain, composeMime } from './mime.js';
import { parseSmtpUrl, SmtpConnection, SmtpError } from './smtp-client.js';

const SMTP_TIMEOUTS = { connectTimeoutMs: 5_000, greetingTimeoutMs: 5_000, socketTimeoutMs: 10_000 };

// At most this many connections, each carrying one message at a time for as long as the server
// keeps it open (an idle one is closed after the socket timeout). Under load, a message waiting for a
// connection takes over one whose message has just gone out, without waiting for its final reply.
// A connection carries one message a round trip (its data must wait for the 354 to DATA), so the pool
// bounds a node's mail rate: 5 (nodemailer's default) capped the bench's sink at about one message a
// connection per turn of the event loop; 10 gave 12-20% more inquiries a second, on less CPU each
// (docs/performance.md), and stays well under a mail server's usual per-client limits (Postfix's
// smtpd_client_connection_count_limit is 50).
export const SMTP_CONNECTIONS = 10;
// How long a message may wait for a free connection before its inquiry is answered 502.
const SMTP_QUEUE_WAIT_MS = 5_000;
// How long its sending may take once it has one. The socket timeout notices only silence: a server
// that trickles its replies a byte at a time held a message for 21 s against a 1 s socket timeout.
const SMTP_SEND_MS = 10_000;

export function smtpMailer(smtpUrl: string): Mailer {
  const target = parseSmtpUrl(smtpUrl, SMTP_TIMEOUTS);
  // Behind a wedged server a queue without limit made the sixth inquiry wait for two socket
  // timeouts and the eleventh for three (30 s, test/reliability/upstream-faults.test.ts). A message
  // that finds no connection free in time fails without ever being handed over, so an inquiry stored
  // as failed is never delivered behind our back. With the send deadline, every message is settled
  // within 5 + 10 s.
  const idle: SmtpConnection[] = [];
  const connections = slots<SmtpConnection>(SMTP_CONNECTIONS, SMTP_QUEUE_WAIT_MS, idle);
  const sends = deadlines(SMTP_SEND_MS);
  let closed = false;
  const takeIdle = () => {
    for (let connection = idle.pop(); connection; connection = idle.pop()) if (connection.usable) return connection;
    return undefined;
  };

  return {
    async send(message) {
      // A connection handed on by a sender whose message has just gone out, or none.
      const handed = await connections.acquire();
      let connection: SmtpConnection | undefined;
      let handedOn = false;
      // RFC 2920 section 3.1: the next waiting message's envelope may follow this one's final dot.
      const handOn = () => {
        if (closed || !connections.waiting()) return false;
        handedOn = true;
        connections.release(connection);
        return true;
      };
      const deadline = sends.start(() => connection?.fail(new SmtpError(`not sent within ${SMTP_SEND_MS / 1000} s`, 'ETIMEDOUT')));
      try {
        const mail = compose(message);
        for (let attempt = 1; ; attempt++) {
          // The retry always takes a new connection: another kept one may be just as stale.
          connection = attempt === 1 ? (handed?.usable ? handed : takeIdle()) : undefined;
          const reused = connection !== undefined;
          if (!connection) {
            connection = new SmtpConnection(target);
            await connection.open();
          }
          try {
            await connection.send(mail.envelope, mail.raw, handOn);
            return { messageId: mail.messageId };
          } catch (error) {
            // A kept connection the server had just closed saw nothing of the message: once more on a new one.
            // Not after a timeout: a server that did not answer the message before this one is wedged.
            if (reused && attempt === 1 && error instanceof SmtpError && error.unanswered && error.code !== 'ETIMEDOUT' && !deadline.expired) continue;
            throw error;
          }
        }
      } catch (error) {
        throw new MailDeliveryError(describeSmtpError(error));
      } finally {
        sends.end(deadline);
        if (!handedOn) {
          // A send that finishes after close() (its client went away during shutdown) ends its session at once.
          if (connection?.usable && closed) connection.quit();
          connections.release(connection?.usable && !closed ? connection : undefined);
        }
      }
    },
    async verify() {
      const connection = new SmtpConnection(target);
      await connection.open();
      connection.quit();
    },
    async close() {
      closed = true;
      for (const connection of idle.splice(0)) connection.quit();
    },
  };
}

/**
 * Calls each operation's `expire` once it has run `limitMs`, checked twice a second by one timer for
 * all of them: a timer (or `AbortSignal.timeout`) per message cost about 45 us of CPU each.
 */
function deadlines(limitMs: number) {
  interface Deadline {
    at: number;
    expired: boolean;
    expire(): void;
  }
  // Insertion order is start order, and every operation has the same limit: the expired come first.
  const running = new Set<Deadline>();
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = () => {
    const now = Date.now();
    for (const deadline of running) {
      if (deadline.at > now) break;
      running.delete(deadline);
      deadline.expired = true;
      deadline.expire();
    }
    if (running.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  return {
    start(expire: () => void): Deadline {
      const deadline = { at: Date.now() + limitMs, expired: false, expire };
      running.add(deadline);
      sweeper ??= setInterval(sweep, 500).unref();
      return deadline;
    },
    end(deadline: Deadline): void {
      running.delete(deadline);
    },
  };
}

/**
 * A counting semaphore whose waiters give up after `waitMs`, first come first served. A slot passes
 * straight to the next waiter, with the releaser's connection when it gives one; a connection
 * released with no one waiting goes to `idle`.
 */
function slots<Connection>(size: number, waitMs: number, idle: Connection[]) {
  let free = size;
  // A Set keeps insertion order: the first waiter is served first.
  const waiting = new Set<(connection: Connection | undefined) => void>();
  return {
    waiting: () => waiting.size > 0,
    acquire(): Promise<Connection | undefined> {
      if (free > 0) {
        free--;
        return Promise.resolve(undefined);
      }
      return new Promise<Connection | undefined>((resolve, reject) => {
        const grant = (connection: Connection | undefined) => {
          clearTimeout(timer);
          resolve(connection);
        };
        const timer = setTimeout(() => {
          waiting.delete(grant);
          reject(new MailDeliveryError(`no SMTP connection free within ${waitMs / 1000} s`));
        }, waitMs);
        waiting.add(grant);
      });
    },
    release(connection?: Connection): void {
      const next = waiting.values().next();
      if (next.done) {
        free++;
        if (connection) idle.push(connection);
      } else {
        waiting.delete(next.value);
        next.value(connection);
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
        await (folder ??= mkdir(dir, { recursive: true, mode: PRIVATE_FOLDER }));
        const name = message.headers['X-Portico-Inquiry-Id'] ?? mail.messageId.replace(/[^\w.-]/g, '');
        // A message holds a person's name, address and words: the owner's alone (D17).
        await writeFile(join(dir, `${name}.eml`), mail.raw, { mode: PRIVATE_FILE });
        return { messageId: mail.messageId };
      } catch (error) {
        folder = undefined;
        throw new MailDeliveryError(`outbox: ${(error as Error).message}`);
      }
    },
    async verify() {
      await mkdir(dir, { recursive: true, mode: PRIVATE_FOLDER });
      await access(dir, constants.W_OK);
    },
    async close() {},
  };
}

/** The message's bytes, with a Message-ID of its own under the sender's domain (RFC 5322 section 3.6.4). */
function compose(message: MailMessage) {
  const domain = message.from.address.slice(message.from.address.lastIndexOf('@') + 1);
  return composeMime(message, { messageId: `<${randomUUID()}@${asciiDomain(domain) || 'portico.invalid'}>`, date: new Date() });
}

/** What went wrong, without message content: an error code, then the server's reply or the socket's error. */
function describeSmtpError(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return [e.code, (e.message ?? 'unknown error').slice(0, 200)].filter(Boolean).join(' ');
}
