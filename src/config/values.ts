// Value parsers every settings module shares, so one kind of setting reads and fails the same way.
import { isIP } from 'node:net';

export type Fail = (name: string, problem: string, value?: string) => never;

/** An integer from 1 to `max`. */
export function parseCount(name: string, raw: string, fail: Fail, max = 1_000_000): number {
  const value = Number(raw);
  return /^\d+$/.test(raw) && value >= 1 && value <= max ? value : fail(name, `must be an integer from 1 to ${max}`, raw);
}

/** One of a few words, in any case, such as on/off or true/false: the word, lower-cased. */
export function parseSwitch(name: string, raw: string, allowed: readonly string[], fail: Fail): string {
  const value = raw.toLowerCase();
  return allowed.includes(value) ? value : fail(name, `must be ${allowed.join(' or ')}`, raw);
}

/** Never echo credentials back into a log line: everything between `//` and the last `@` goes. */
export function redactUrl(raw: string): string {
  const start = raw.indexOf('//');
  const at = raw.lastIndexOf('@');
  return start >= 0 && at > start ? `${raw.slice(0, start + 2)}***${raw.slice(at)}` : raw;
}

/** A TCP port, 0 (any free one) to 65535. */
export function parsePort(name: string, raw: string, fail: Fail): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) fail(name, 'must be an integer from 0 to 65535', raw);
  return port;
}

/** One of a few words, exactly as written. */
export function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[], fail: Fail): T {
  if (!(allowed as readonly string[]).includes(raw)) fail(name, `must be one of ${allowed.join(', ')}`, raw);
  return raw as T;
}

/** A URL with one of `schemes`; credentials are never echoed in the refusal. */
export function parseUrlWithScheme(name: string, raw: string, schemes: string[], fail: Fail): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(name, 'is not a valid URL', redactUrl(raw));
  }
  if (!schemes.includes(url.protocol)) fail(name, `must use ${schemes.map((s) => `${s}//`).join(' or ')}`, redactUrl(raw));
  return url;
}

/** A base URL: http(s), no query or fragment, no trailing slash (issuer identifiers, RFC 8414 section 2). */
export function parseBaseUrl(name: string, raw: string, fail: Fail): string {
  const url = parseUrlWithScheme(name, raw, ['http:', 'https:'], fail);
  if (url.search || url.hash || url.username || url.password) fail(name, 'must not carry credentials, a query or a fragment', redactUrl(raw));
  return url.href.replace(/\/+$/, '');
}

/** Whether a host name or address (bracketed or not) is loopback: localhost and its subdomains, 127.0.0.0/8 or ::1. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** `raw` as an origin (http or https scheme, host and port, nothing more), or undefined when it is not one. */
export function originOf(raw: string): string | undefined {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  return url && ['http:', 'https:'].includes(url.protocol) && url.origin === raw.replace(/\/$/, '') ? url.origin : undefined;
}
