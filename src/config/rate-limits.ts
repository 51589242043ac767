// The table of rate limits that routes and the contact tool join by name, and its RATE_LIMITS syntax: the
// contract's per-IP limits (section 8), and ours beyond it.

/**
 * Two are ours, beyond the contract. `revoke`: POST /oauth/revoke per IP, as the token endpoint, since it
 * authenticates clients too. `contact-client` (D14): inquiries an hour per OAuth client through
 * contact_service with a Bearer token, which does not draw on the caller's per-IP `contact` quota as an
 * anonymous call does.
 */
export const LIMIT_NAMES = ['contact', 'register', 'token', 'authorize', 'mcp', 'revoke', 'contact-client'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

export interface Limit {
  max: number;
  windowSeconds: number;
}

/** `undefined` entries are switched off. */
export type RateLimits = Readonly<Record<LimitName, Limit | undefined>>;

export const DEFAULT_RATE_LIMITS: RateLimits = Object.freeze({
  contact: { max: 8, windowSeconds: 3600 },
  register: { max: 10, windowSeconds: 3600 },
  token: { max: 30, windowSeconds: 60 },
  authorize: { max: 30, windowSeconds: 60 },
  mcp: { max: 60, windowSeconds: 60 },
  revoke: { max: 30, windowSeconds: 60 },
  'contact-client': { max: 60, windowSeconds: 3600 },
});

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
/**
 * A bound on counts and windows, so that a slip (8/99999999999999d) stops the start instead of reaching the
 * counters as milliseconds beyond Number.MAX_SAFE_INTEGER or Redis's integers.
 */
const MAX_WINDOW_DAYS = 30;
const MAX_COUNT = 1_000_000;

/**
 * `default`, `off`, or a list such as `contact=8/h,token=30/m`; names not listed keep their default
 * and `name=off` switches one limit off.
 */
export function parseRateLimits(raw: string, fail: (problem: string) => never): RateLimits {
  if (raw === 'default') return DEFAULT_RATE_LIMITS;
  if (raw === 'off') return Object.freeze(Object.fromEntries(LIMIT_NAMES.map((n) => [n, undefined]))) as RateLimits;
  const limits: Record<string, Limit | undefined> = { ...DEFAULT_RATE_LIMITS };
  for (const item of raw.split(',')) {
    const match = /^\s*([a-z]+(?:-[a-z]+)*)\s*=\s*(?:(\d+)\s*\/\s*(\d*)([smhd])|(off))\s*$/.exec(item);
    const name = match?.[1];
    if (!match || !name || !(LIMIT_NAMES as readonly string[]).includes(name)) {
      fail(`must be default, off, or a list like contact=8/h,token=30/m: names ${LIMIT_NAMES.join(', ')}; windows in s, m, h or d (as 30/m or 2/10m), or off (got "${item.trim()}")`);
    }
    const max = Number(match[2]);
    const windowSeconds = Number(match[3] || 1) * (UNIT_SECONDS[match[4] ?? ''] ?? 0);
    if (!match[5] && (max < 1 || windowSeconds < 1)) fail(`needs a positive count and window (got "${item.trim()}")`);
    if (!match[5] && (max > MAX_COUNT || windowSeconds > MAX_WINDOW_DAYS * UNIT_SECONDS.d!)) {
      fail(`allows at most ${MAX_COUNT} requests a window and windows of at most ${MAX_WINDOW_DAYS}d (got "${item.trim()}")`);
    }
    limits[name] = match[5] ? undefined : { max, windowSeconds };
  }
  return Object.freeze(limits);
}

/** The `RateLimit-Policy` value for a limit: `8;w=3600` (draft-ietf-httpapi-ratelimit-headers). */
export function policyHeader(limit: Limit): string {
  return `${limit.max};w=${limit.windowSeconds}`;
}
