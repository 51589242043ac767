// Mail through the operator's relay: nodemailer's pooled SMTP transport, with the settings of config/mail.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import nodemailer from 'nodemailer';
import type { default as SMTPPool, SMTPPoolOptions } from 'nodemailer/lib/smtp-pool';
import type { DkimSettings, SmtpSettings } from '../../config/mail.js';
import { MailDeliveryError, type Mailer, type MailMessage } from '../../ports/mailer.js';
import { nodemailerOptions } from './nodemailer-message.js';

// A request waits for its e-mail at most this long, queueing for a connection included, so that the
// contract's 502 comes within 15 s however the relay misbehaves (down, wedged, trickling its replies a
// byte at a time, which no socket timeout notices).
export const SMTP_SEND_DEADLINE_MS = 14_000;
const TIMEOUTS = { connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000, socketCloseTimeout: 2_000 };
// The reason a send is aborted with when the process stops (abandon()), as opposed to its deadline.
const STOPPING = Symbol('stopping');
// How long a message refused at connection waits before it looks again for an open connection.
const REFUSED_RETRY_MS = 250;
// A relay that took a message this recently is up: longer than the longest wait between two tries.
const RELAY_UP_MS = 2_000;

export interface SmtpMailerOptions {
  smtp: SmtpSettings;
  dkim: DkimSettings | undefined;
  /** nodemailer's own log lines (connections, retries), at debug: they never carry message content. */
  log: { debug(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/**
 * A Mailer over nodemailer's SMTP pool: send() rejects with MailDeliveryError (permanent for a 5yz refusal)
 * unless the relay takes the message within SMTP_SEND_DEADLINE_MS. abandon() gives up every send under way.
 */
export function smtpMailer(options: SmtpMailerOptions): Mailer {
  const { smtp } = options;
  const transport = nodemailer.createTransport(transportOptions(options));
  const pool = transport.transporter as unknown as SMTPPool;
  // When the relay last took a message from this pool. nodemailer counts its open connections in no
  // public member; what the relay did says whether it is up and holds connections of ours.
  let lastDelivered = -Infinity;
  /** Whether a message first refused at connection at `refusedAt` may wait for one of the pool's connections. */
  const connectionsOpen = (refusal: unknown, refusedAt: number) =>
    (refusal as SmtpFailure).responseCode === 421
      ? // A relay that greets with 421 is up: the pool's other messages (nodemailer's public count) are
        // being delivered on connections it took, or one was lately and its connection is kept open.
        pool.pendingCount() > 0 || performance.now() - lastDelivered < RELAY_UP_MS
      : // A refused TCP connection is a cap only if the relay has taken a message since: else it is down.
        lastDelivered > refusedAt;
  const deadlines = sendDeadlines(SMTP_SEND_DEADLINE_MS);

  async function sendWithin(message: MailMessage, abort: AbortSignal, deadline: AbortSignal): Promise<string> {
    const mail = { ...nodemailerOptions(message), signal: abort };
    let refusedAt: number | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        const { response } = await transport.sendMail(mail);
        lastDelivered = performance.now();
        return oneLine(response);
      } catch (error) {
        // A relay that caps its connections per client (3 is common at providers) greets the one over
        // its cap with 421, or refuses it. That message never left: it waits for one of the connections
        // that are delivering, instead of failing. With none open the relay is down or closed to us, and
        // the answer is due at once.
        if (refusedAtConnection(error) && !abort.aborted) {
          refusedAt ??= performance.now();
          await sleep(Math.min(REFUSED_RETRY_MS * attempt, 1_000), undefined, { signal: abort }).catch(() => {});
          // The deadline may have passed during the sleep.
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
          if (connectionsOpen(error, refusedAt) && !abort.aborted) continue;
        }
        throw deliveryError(error, abort, deadline);
      }
    }
  }

  return {
    async send(message, signal) {
      const deadline = deadlines.start();
      const abort = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
      try {
        return await sendWithin(message, abort, deadline.signal);
      } finally {
        deadline.end();
      }
    },
    async verify() {
      // A transport of its own: verify() on the pool would open a connection beside the pooled ones.
      const probe = nodemailer.createTransport({ ...transportOptions(options), pool: false });
      try {
        await probe.verify();
      } catch (error) {
        throw new MailDeliveryError(describe(error));
      } finally {
        probe.close();
      }
    },
    abandon() {
      deadlines.abortAll(STOPPING);
    },
    async close() {
      // A send still running after its request was answered (shutdown) must not deliver behind our back.
      pool.close({ force: true });
    },
  };

  function transportOptions({ dkim, log }: SmtpMailerOptions): SMTPPoolOptions & { pool: true } {
    return {
      pool: true,
      host: smtp.host,
      port: smtp.port,
      secure: smtp.implicitTls,
      requireTLS: smtp.requireTls,
      name: smtp.ehloName,
      maxConnections: smtp.maxConnections,
      maxMessages: smtp.maxMessages,
      ...TIMEOUTS,
      auth: smtp.oauth2
        ? { type: 'OAuth2', user: smtp.user, clientId: smtp.oauth2.clientId, clientSecret: smtp.oauth2.clientSecret, refreshToken: smtp.oauth2.refreshToken, accessUrl: smtp.oauth2.tokenUrl }
        : smtp.user
          ? { user: smtp.user, pass: smtp.password ?? '' }
          : undefined,
      tls: {
        ca: smtp.tlsCa,
        servername: smtp.tlsServername,
        rejectUnauthorized: !smtp.tlsInsecure,
      },
      dkim: dkim && { domainName: dkim.domain, keySelector: dkim.selector, privateKey: dkim.privateKey },
      logger: nodemailerLogger(log),
    };
  }
}

/** A deadline for each message, and a way to abort every one still running (abandon()). */
function sendDeadlines(limitMs: number) {
  const running = new Set<AbortController>();
  return {
    start(): { signal: AbortSignal; end(): void } {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), limitMs);
      running.add(controller);
      return {
        signal: controller.signal,
        end() {
          clearTimeout(timer);
          running.delete(controller);
        },
      };
    },
    /** Aborts every running deadline now, with `reason`. */
    abortAll(reason: unknown): void {
      for (const controller of running) controller.abort(reason);
      running.clear();
    },
  };
}

interface SmtpFailure {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

function refusedAtConnection(error: unknown): boolean {
  const e = error as SmtpFailure;
  return e.command === 'CONN' && (e.responseCode === 421 || /ECONNREFUSED/.test(e.message ?? ''));
}

function deliveryError(error: unknown, abort: AbortSignal, deadline: AbortSignal): MailDeliveryError {
  if (abort.aborted) {
    if (deadline.reason === STOPPING) return new MailDeliveryError('EABORT not sent: the process stopped first');
    return new MailDeliveryError(deadline.aborted ? `ETIMEDOUT not sent within ${SMTP_SEND_DEADLINE_MS / 1000} s` : 'EABORT the send was cancelled');
  }
  const e = error as SmtpFailure;
  // RFC 5321 section 4.2.1: 5yz is a permanent refusal, of the envelope or of the message itself.
  const permanent = e.responseCode !== undefined && e.responseCode >= 500 && (e.code === 'EENVELOPE' || e.code === 'EMESSAGE');
  return new MailDeliveryError(describe(error), permanent, e.response === undefined ? undefined : oneLine(e.response));
}

/** A server's reply as one line of at most 200 characters: it is logged and stored. */
const oneLine = (reply: string) => reply.replace(/[\r\n]+/g, ' ').slice(0, 200);

/** What went wrong, without message content: an error code, then the server's reply or the socket's error. */
function describe(error: unknown): string {
  const e = error as SmtpFailure;
  return [e.code, oneLine(e.response ?? e.message ?? 'unknown error')].filter(Boolean).join(' ');
}

/** nodemailer's bunyan-style logger calls, onto ours: its lines name connections and replies, never content. */
function nodemailerLogger(log: SmtpMailerOptions['log']) {
  const at =
    (level: 'debug' | 'warn') =>
    (entry: object, message: unknown, ...args: unknown[]) => {
      let i = 0;
      const text = String(message).replace(/%s/g, () => String(args[i++]));
      log[level]({ smtp: entry }, text);
    };
  return { trace() {}, debug: at('debug'), info: at('debug'), warn: at('warn'), error: at('warn'), fatal: at('warn'), level() {} };
}
