// The SMTP client's vocabulary: where to connect (SMTP_URL), replies, and the one error type its
// sessions fail with, safe to log (a reply code and the server's text, or a socket error code).

export interface SmtpTarget {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (`smtps://`, RFC 8314); otherwise STARTTLS when offered. */
  secure: boolean;
  auth?: { user: string; pass: string };
  connectTimeoutMs: number;
  greetingTimeoutMs: number;
  /** Silence allowed while waiting for a reply; an idle kept connection is closed after as long. */
  socketTimeoutMs: number;
}

/** `smtp://user:pass@host:port` or `smtps://...`; the port defaults to 587 (submission) or 465. */
export function parseSmtpUrl(url: string, timeouts: Pick<SmtpTarget, 'connectTimeoutMs' | 'greetingTimeoutMs' | 'socketTimeoutMs'>): SmtpTarget {
  const parsed = new URL(url);
  const secure = parsed.protocol === 'smtps:';
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    auth: parsed.username ? { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } : undefined,
    ...timeouts,
  };
}

/** What went wrong, safe to log: a reply code and the server's text, or a socket error code. */
export class SmtpError extends Error {
  override name = 'SmtpError';
  /** The session failed before the server answered any command of this transaction. */
  unanswered = false;
  constructor(
    message: string,
    readonly code: string,
    readonly responseCode?: number,
  ) {
    super(message);
  }

  /**
   * A copy saying this transaction's commands got no answer: the failure itself is shared by every
   * transaction on the connection, and one further on must not make an earlier one look unanswered.
   */
  unansweredCopy(): SmtpError {
    return Object.assign(new SmtpError(this.message, this.code, this.responseCode), { unanswered: true });
  }
}

export interface Reply {
  code: number;
  text: string;
}

/** A refusal: 5xx is permanent (RFC 5321 section 4.2.1), 4xx worth a later retry. */
export const replyError = (reply: Reply) => new SmtpError(`${reply.code} ${reply.text.replace(/\n/g, ' ')}`.slice(0, 300), reply.code >= 500 ? 'EREFUSED' : 'ETEMPFAIL', reply.code);

export const isLoopback = (address: string | undefined) => address !== undefined && (/^(::ffff:)?127\./.test(address) || address === '::1');

export const NOT_ASCII = /[^\x00-\x7f]/;

export const isPositive = (reply: Reply) => reply.code >= 200 && reply.code < 300;

/** The EHLO reply's extensions (RFC 5321 section 4.1.1.1): keyword -> parameters, upper case. */
export function extensionsOf(ehlo: Reply): Map<string, string> {
  return new Map(
    ehlo.text
      .split('\n')
      .slice(1)
      .map((line) => {
        const [keyword = '', ...params] = line.trim().split(/\s+/);
        return [keyword.toUpperCase(), params.join(' ').toUpperCase()];
      }),
  );
}

export function asSmtpError(error: unknown): SmtpError {
  if (error instanceof SmtpError) return error;
  const e = error as NodeJS.ErrnoException;
  return new SmtpError(e?.message ?? String(error), e?.code ?? 'ESOCKET');
}
