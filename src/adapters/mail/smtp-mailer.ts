// Mail through the operator's relay: nodemailer's pooled SMTP transport, with the settings of config/mail.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import nodemailer from 'nodemailer';
import type { SMTPPoolOptions } from 'nodemailer/lib/smtp-pool';
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

export interface SmtpMailerOptions {
  smtp: SmtpSettings;
  dkim: DkimSettings | undefined;
  /** nodemailer's own log lines (connections, retries), at debug: they never carry message content. */
  log: { debug(obj: object, msg: string): void; warn(obj: object, msg: string): void; isLevelEnabled?(level: string): boolean };
}

/**
 * A Mailer over nodemailer's SMTP pool: send() rejects with MailDeliveryError (permanent for a 5yz refusal)
 * unless the relay takes the message within SMTP_SEND_DEADLINE_MS. abandon() gives up every send under way.
 */
export function smtpMailer(options: SmtpMailerOptions): Mailer {
  const { smtp } = options;
  const transport = nodemailer.createTransport(transportOptions(options));
  // The pool's open connections. nodemailer keeps them in a field of its own and has no public count;
  // were the field ever gone, this reads 0 and a refused message fails at once, as without the wait.
  const openConnections = () => (transport.transporter as unknown as { _connections?: unknown[] })._connections?.length ?? 0;
  const deadlines = deadlineSweeper(SMTP_SEND_DEADLINE_MS);

  async function sendWithin(message: MailMessage, abort: AbortSignal, deadline: AbortSignal): Promise<void> {
    const mail = { ...nodemailerOptions(message), signal: abort };
    for (let attempt = 1; ; attempt++) {
      try {
        await transport.sendMail(mail);
        return;
      } catch (error) {
        // A relay that caps its connections per client (3 is common at providers) greets the one over
        // its cap with 421, or refuses it. That message never left: it waits for a connection that is
        // delivering, while one is open, instead of failing. With none open the relay is down or
        // closed to us, and the answer is due at once.
        if (refusedAtConnection(error) && !abort.aborted) {
          await sleep(Math.min(REFUSED_RETRY_MS * attempt, 1_000), undefined, { signal: abort }).catch(() => {});
          // The deadline may have passed during the sleep.
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
          if (openConnections() > 0 && !abort.aborted) continue;
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
        await sendWithin(message, abort, deadline.signal);
      } finally {
        deadlines.end(deadline);
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
      (transport.transporter as { close(options?: { force?: boolean }): void }).close({ force: true });
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
      // Formatting nodemailer's lines is a real part of a message's cost: they are made only when they are kept.
      logger: log.isLevelEnabled?.('debug') === false ? false : nodemailerLogger(log),
    };
  }
}

/**
 * One AbortController a message, aborted by a single timer that looks twice a second for the expired:
 * AbortSignal.timeout keeps a timer of its own for each.
 */
function deadlineSweeper(limitMs: number) {
  interface Deadline {
    at: number;
    controller: AbortController;
    signal: AbortSignal;
  }
  // Every deadline has the same length: insertion order is expiry order.
  const running = new Set<Deadline>();
  let timer: NodeJS.Timeout | undefined;
  const sweep = () => {
    const now = Date.now();
    for (const deadline of running) {
      if (deadline.at > now) break;
      running.delete(deadline);
      deadline.controller.abort();
    }
    if (running.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    start(): Deadline {
      const controller = new AbortController();
      const deadline = { at: Date.now() + limitMs, controller, signal: controller.signal };
      running.add(deadline);
      timer ??= setInterval(sweep, 500).unref();
      return deadline;
    },
    end(deadline: Deadline): void {
      running.delete(deadline);
    },
    /** Aborts every running deadline now, with `reason`. */
    abortAll(reason: unknown): void {
      for (const deadline of running) deadline.controller.abort(reason);
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
  return new MailDeliveryError(describe(error), permanent);
}

/** What went wrong, without message content: an error code, then the server's reply or the socket's error. */
function describe(error: unknown): string {
  const e = error as SmtpFailure;
  const detail = e.response ?? e.message ?? 'unknown error';
  return [e.code, detail.replace(/[\r\n]+/g, ' ').slice(0, 200)].filter(Boolean).join(' ');
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
