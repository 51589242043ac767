// The URLs `portico doctor` compares and derives: the address as the user gives it, the well-known
// locations a host derives from it, and how two URLs differ when a host would refuse one for the other.
import { isLoopback } from '../../config/values.js';
import { CliError } from '../output.js';

export interface Target {
  /** The URL as given, parsed: `https://api.example.com/`, `https://example.com/api/` with its trailing slash. */
  given: string;
  /** The same without a trailing slash: what PUBLIC_URL would be, and the base of /mcp and /api/contact. */
  base: string;
  /** Scheme, host and port. */
  origin: string;
  https: boolean;
  loopback: boolean;
}

/** The deployment's address as given on the command line or by PUBLIC_URL; a usage mistake throws CliError. */
export function parseTarget(raw: string): Target {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`doctor: ${raw} is not a URL; give the deployment's address as PUBLIC_URL names it, such as https://api.example.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CliError(`doctor: ${raw} must use https:// (or http:// on loopback)`);
  if (url.search || url.hash || url.username || url.password) throw new CliError(`doctor: ${raw} must not carry credentials, a query or a fragment: give the address as PUBLIC_URL names it`);
  const base = url.href.replace(/\/+$/, '');
  // What a user types into a host is the MCP endpoint; doctor wants the address it hangs from.
  if (base.endsWith('/mcp')) throw new CliError(`doctor: give the deployment's address as PUBLIC_URL names it, not its MCP endpoint: portico doctor ${base.slice(0, -'/mcp'.length)}`);
  return { given: url.href, base, origin: url.origin, https: url.protocol === 'https:', loopback: isLoopback(url.hostname) };
}

/**
 * Where the metadata of `identifier` lives: the well-known segment goes between the host and the path
 * (RFC 9728 section 3.1 for a resource, RFC 8414 section 3.1 for an issuer).
 */
export function wellKnownUrl(identifier: string, name: 'oauth-protected-resource' | 'oauth-authorization-server'): string {
  const url = new URL(identifier);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}/.well-known/${name}${path}`;
}

/** `url`'s path after `origin`, for short lines (`/.well-known/...`); the whole URL when it is elsewhere. */
export function shortUrl(url: string, origin: string): string {
  return url.startsWith(`${origin}/`) ? url.slice(origin.length) : url;
}

export type Difference = 'not a URL' | 'scheme' | 'host' | 'port' | 'path' | 'trailing slash';

/**
 * How `actual` differs from `expected`, or undefined when a host takes them as the same URL: RFC 9728
 * section 3.3 and RFC 8414 section 3.3 want identical strings; an empty path and `/` are one (RFC 3986
 * section 6.2.3), and hosts compare parsed URLs. The first part that differs is named.
 */
export function difference(expected: string, actual: unknown): Difference | undefined {
  if (typeof actual !== 'string') return 'not a URL';
  let a: URL;
  try {
    a = new URL(actual);
  } catch {
    return 'not a URL';
  }
  const e = new URL(expected);
  if (a.protocol !== e.protocol) return 'scheme';
  if (a.hostname !== e.hostname) return 'host';
  if (a.port !== e.port) return 'port';
  if (a.pathname === e.pathname && a.search === e.search && a.hash === e.hash) return undefined;
  if (a.pathname.replace(/\/$/, '') === e.pathname.replace(/\/$/, '')) return 'trailing slash';
  return 'path';
}

/** A difference in words: `another host`, `a trailing slash apart`. */
export const differenceInWords = (d: Difference) => (d === 'trailing slash' ? 'a trailing slash apart' : d === 'not a URL' ? 'not a URL' : `another ${d}`);

/** The base a published URL implies, once the route's path is taken off (`https://x/mcp` with `/mcp`: `https://x`). */
export function baseOf(published: string, path: string): string {
  const trimmed = published.replace(/\/+$/, '');
  return path && trimmed.endsWith(path) ? trimmed.slice(0, -path.length) : trimmed;
}
