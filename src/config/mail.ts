// The delivery settings (D15): the SMTP relay and how to reach it, DKIM, the webhook, retries.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { isLoopback, parseCount, parseSwitch, redactUrl, type Fail } from './values.js';
import { durationMs } from './durations.js';

export interface SmtpSettings {
  /** The relay, credentials removed (they are in `user` and `password`). */
  host: string;
  port: number;
  /** smtps://: TLS from the first byte (RFC 8314); else STARTTLS when offered or required. */
  implicitTls: boolean;
  user: string | undefined;
  password: string | undefined;
  maxConnections: number;
  /** Messages per connection before it is replaced; Infinity: as many as the relay takes. */
  maxMessages: number;
  /** Refuse to send unless the session is encrypted (STARTTLS, RFC 3207). */
  requireTls: boolean;
  /** Trusted CAs (PEM) instead of the system's, for a private relay. */
  tlsCa: string | undefined;
  tlsServername: string | undefined;
  /** No certificate check at all: allowed only for a relay on loopback. */
  tlsInsecure: boolean;
  /** The name Portico gives in EHLO (RFC 5321 section 4.1.1.1). */
  ehloName: string;
  /** XOAUTH2 instead of a password (Microsoft 365, Google Workspace); the user is SMTP_URL's. */
  oauth2: { clientId: string; clientSecret: string; refreshToken: string; tokenUrl: string } | undefined;
}

export interface DkimSettings {
  domain: string;
  selector: string;
  privateKey: string;
}

export interface WebhookSettings {
  url: string;
  /** The HMAC key, decoded from its whsec_<base64> form. */
  secret: Buffer;
}

export interface DeliverySettings {
  smtp: SmtpSettings | undefined;
  dkim: DkimSettings | undefined;
  webhook: WebhookSettings | undefined;
  /** How long transient failures are retried before an inquiry is failed for good. */
  retryForMs: number;
  /** Whether submitters who passed a human check or came with a token get a short acknowledgement. */
  acknowledge: boolean;
}

type Read = (name: string) => string | undefined;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The SMTP_*, DKIM_*, WEBHOOK_* and MAIL_* settings, reading the PEM files they name. In production SMTP_URL
 * or WEBHOOK_URL is required; each bad value goes to `fail`.
 */
export function parseDelivery(read: Read, fail: Fail, production: boolean): DeliverySettings {
  const smtp = parseSmtp(read, fail);
  const webhook = parseWebhook(read, fail);
  if (!smtp && production && !webhook) fail('SMTP_URL', 'is required when APP_ENV=production unless WEBHOOK_URL is set (the outbox folder is for development)');
  return {
    smtp,
    dkim: parseDkim(read, fail),
    webhook,
    retryForMs: parseDuration('MAIL_RETRY_FOR', read('MAIL_RETRY_FOR') ?? '24h', { minMs: 0, maxMs: 30 * DAY_MS }, fail),
    acknowledge: parseSwitch('MAIL_ACKNOWLEDGE', read('MAIL_ACKNOWLEDGE') ?? 'off', ['on', 'off'], fail) === 'on',
  };
}

function parseSmtp(read: Read, fail: Fail): SmtpSettings | undefined {
  const raw = read('SMTP_URL');
  const others = ['SMTP_MAX_CONNECTIONS', 'SMTP_MAX_MESSAGES', 'SMTP_TLS_CA_FILE', 'SMTP_REQUIRE_TLS', 'SMTP_TLS_SERVERNAME', 'SMTP_TLS_INSECURE', 'SMTP_EHLO_NAME', 'SMTP_OAUTH2_CLIENT_ID'];
  if (raw === undefined) {
    const stray = others.find((name) => read(name) !== undefined);
    if (stray) fail(stray, 'has no effect without SMTP_URL');
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(
      'SMTP_URL',
      'is not a valid URL: smtp://user:pass@host:587 or smtps://user:pass@host:465; a / (or @, :, #, ?) in the user name or password must be percent-encoded (/ as %2F)',
      redactUrl(raw),
    );
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') fail('SMTP_URL', 'must use smtp:// or smtps://', redactUrl(raw));
  // Every setting has its own variable: a query would be a second way to say one, silently ignored.
  if (url.search || url.hash) fail('SMTP_URL', 'takes no query options (use smtps:// for TLS from the first byte, and the SMTP_* settings)', redactUrl(raw));
  // A path is never meant: it is what an unencoded / in the password turns the rest of the URL into, and the
  // host would then be the user name, found only at the first send.
  if (url.pathname !== '' && url.pathname !== '/') {
    fail('SMTP_URL', 'takes no path; a / (or @, :, #, ?) in the user name or password must be percent-encoded (/ as %2F)', redactUrl(raw));
  }
  if (!url.hostname) fail('SMTP_URL', 'needs a host', redactUrl(raw));
  const user = decode('SMTP_URL', url.username, raw, fail);
  const password = decode('SMTP_URL', url.password, raw, fail);
  const implicitTls = url.protocol === 'smtps:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const oauth2 = parseOAuth2(read, fail, user);
  if (oauth2 && password) fail('SMTP_URL', 'carries a password, but XOAUTH2 is configured (SMTP_OAUTH2_*): give only the user', redactUrl(raw));
  const credentials = Boolean(user && (password || oauth2));
  const tlsInsecure = parseSwitch('SMTP_TLS_INSECURE', read('SMTP_TLS_INSECURE') ?? 'false', ['true', 'false'], fail) === 'true';
  if (tlsInsecure && !isLoopback(host)) fail('SMTP_TLS_INSECURE', 'is allowed only for a relay on loopback (127.0.0.1, ::1, localhost); trust a private CA with SMTP_TLS_CA_FILE instead', host);
  const requireTlsRaw = read('SMTP_REQUIRE_TLS');
  const requireTls = requireTlsRaw === undefined ? credentials : parseSwitch('SMTP_REQUIRE_TLS', requireTlsRaw, ['true', 'false'], fail) === 'true';
  // Credentials in clear are never an option: turning the requirement off for them is refused, not obeyed.
  if (credentials && !requireTls && !implicitTls) fail('SMTP_REQUIRE_TLS', 'cannot be false while SMTP_URL carries credentials: they would be sent in clear');
  return {
    host,
    port: url.port ? Number(url.port) : implicitTls ? 465 : 587,
    implicitTls,
    user: user || undefined,
    password: password || undefined,
    maxConnections: parseCount('SMTP_MAX_CONNECTIONS', read('SMTP_MAX_CONNECTIONS') ?? '5', fail, 100),
    maxMessages: read('SMTP_MAX_MESSAGES') === undefined ? Infinity : parseCount('SMTP_MAX_MESSAGES', read('SMTP_MAX_MESSAGES')!, fail),
    requireTls,
    tlsCa: readPem('SMTP_TLS_CA_FILE', read('SMTP_TLS_CA_FILE'), 'CERTIFICATE', fail),
    tlsServername: read('SMTP_TLS_SERVERNAME'),
    tlsInsecure,
    ehloName: parseEhloName(read('SMTP_EHLO_NAME') ?? hostname(), fail),
    oauth2,
  };
}

function parseOAuth2(read: Read, fail: Fail, user: string): SmtpSettings['oauth2'] {
  const names = ['SMTP_OAUTH2_CLIENT_ID', 'SMTP_OAUTH2_CLIENT_SECRET', 'SMTP_OAUTH2_REFRESH_TOKEN', 'SMTP_OAUTH2_TOKEN_URL'] as const;
  const values = names.map((name) => read(name));
  if (values.every((value) => value === undefined)) return undefined;
  const missing = names.filter((_, i) => values[i] === undefined);
  if (missing.length) fail(missing.join(', '), `${missing.length > 1 ? 'are' : 'is'} required with the other SMTP_OAUTH2_* settings (XOAUTH2 needs all four)`);
  if (!user) fail('SMTP_URL', 'must name the mailbox user (smtp://user%40example.com@host:587) when SMTP_OAUTH2_* is set');
  const [clientId, clientSecret, refreshToken, tokenUrl] = values as string[];
  let parsed: URL | undefined;
  try {
    parsed = new URL(tokenUrl!);
  } catch {
    /* reported below */
  }
  if (!parsed || (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && isLoopback(parsed.hostname)))) {
    fail('SMTP_OAUTH2_TOKEN_URL', 'must be an https:// URL (http:// only on loopback)', tokenUrl);
  }
  return { clientId: clientId!, clientSecret: clientSecret!, refreshToken: refreshToken!, tokenUrl: tokenUrl! };
}

function parseDkim(read: Read, fail: Fail): DkimSettings | undefined {
  const names = ['DKIM_DOMAIN', 'DKIM_SELECTOR', 'DKIM_PRIVATE_KEY_FILE'] as const;
  const values = names.map((name) => read(name));
  if (values.every((value) => value === undefined)) return undefined;
  const missing = names.filter((_, i) => values[i] === undefined);
  if (missing.length) fail(missing.join(', '), `${missing.length > 1 ? 'are' : 'is'} required with the other DKIM_* settings`);
  const [domain, selector, file] = values as string[];
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(domain!) || !domain!.includes('.')) fail('DKIM_DOMAIN', 'must be a domain name such as example.com', domain);
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/.test(selector!)) fail('DKIM_SELECTOR', 'must be a DNS label such as portico2026', selector);
  return { domain: domain!, selector: selector!, privateKey: readPem('DKIM_PRIVATE_KEY_FILE', file, 'PRIVATE KEY', fail)! };
}

function parseWebhook(read: Read, fail: Fail): WebhookSettings | undefined {
  const raw = read('WEBHOOK_URL');
  const secret = read('WEBHOOK_SECRET');
  if (raw === undefined) {
    if (secret !== undefined) fail('WEBHOOK_SECRET', 'has no effect without WEBHOOK_URL');
    return undefined;
  }
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    /* reported below */
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash) fail('WEBHOOK_URL', 'must be an http:// or https:// URL without a fragment', redactUrl(raw));
  if (secret === undefined) fail('WEBHOOK_SECRET', 'is required with WEBHOOK_URL: a whsec_ value with at least 24 random bytes in base64 (openssl rand -base64 32)');
  // Standard Webhooks: the secret is whsec_ followed by base64 of 24 to 64 random bytes.
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  const key = match ? Buffer.from(match[1]!, 'base64') : undefined;
  if (!key || key.length < 24 || key.length > 64) fail('WEBHOOK_SECRET', 'must be whsec_ followed by 24 to 64 bytes in base64 (openssl rand -base64 32)');
  return { url: url.href, secret: key };
}

function decode(name: string, part: string, raw: string, fail: Fail): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return fail(name, 'has a user name or password that is not valid percent-encoding', redactUrl(raw));
  }
}

function readPem(name: string, file: string | undefined, kind: string, fail: Fail): string | undefined {
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return fail(name, `cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, file);
  }
  if (!text.includes(`-----BEGIN `) || !text.includes(kind)) fail(name, `must be a PEM file holding a ${kind.toLowerCase()}`, file);
  return text;
}

function parseEhloName(raw: string, fail: Fail): string {
  // RFC 5321 section 4.1.1.1: a domain, or an address literal when the host has no name.
  if (/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(raw) || /^\[[0-9A-Fa-f:.]+\]$/.test(raw)) return raw;
  return fail('SMTP_EHLO_NAME', 'must be a host name such as portico.example.com', raw);
}

function parseDuration(name: string, raw: string, bounds: { minMs: number; maxMs: number }, fail: Fail): number {
  const ms = durationMs(raw);
  if (ms === undefined) return fail(name, 'must be a duration such as 30m, 24h or 7d', raw);
  if (ms < bounds.minMs || ms > bounds.maxMs) fail(name, `must be at most ${bounds.maxMs / DAY_MS} days`, raw);
  return ms;
}
