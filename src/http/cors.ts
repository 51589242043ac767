// CORS per route policy (D10): who may call from a browser, what they may send and read.
import type { CorsPolicy } from '../modules/common/route-spec.js';

export interface CorsSettings {
  contactAllowedOrigins: readonly string[];
  mcpAllowedOrigins: readonly string[] | '*';
}

const EXPOSED = 'WWW-Authenticate, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy';
const ALLOWED_HEADERS: Record<CorsPolicy, string> = {
  public: 'Authorization, Content-Type',
  site: 'Authorization, Content-Type, Idempotency-Key',
  mcp: 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID',
};
const PREFLIGHT_MAX_AGE_SECONDS = '600';

export type Headers = Record<string, string>;

/** The value of Access-Control-Allow-Origin for this request's Origin, or undefined when not allowed. */
export function allowOrigin(policy: CorsPolicy, origin: string | undefined, settings: CorsSettings): string | undefined {
  if (policy === 'public') return '*';
  const allowed = policy === 'site' ? settings.contactAllowedOrigins : settings.mcpAllowedOrigins;
  if (allowed === '*') return '*';
  return origin !== undefined && allowed.includes(origin) ? origin : undefined;
}

/** Headers for an actual (non-preflight) response. */
export function corsHeaders(policy: CorsPolicy, origin: string | undefined, settings: CorsSettings): Headers {
  const allowed = allowOrigin(policy, origin, settings);
  const headers: Headers = allowed === '*' ? {} : { vary: 'Origin' };
  if (allowed) {
    headers['access-control-allow-origin'] = allowed;
    headers['access-control-expose-headers'] = EXPOSED;
  }
  return headers;
}

/** Headers for a preflight; without an allowed origin only `Vary`, so the browser refuses the call. */
export function preflightHeaders(policy: CorsPolicy, origin: string | undefined, methods: readonly string[], settings: CorsSettings): Headers {
  const headers = corsHeaders(policy, origin, settings);
  if (!headers['access-control-allow-origin']) return headers;
  delete headers['access-control-expose-headers'];
  return {
    ...headers,
    'access-control-allow-methods': [...methods, 'OPTIONS'].join(', '),
    'access-control-allow-headers': ALLOWED_HEADERS[policy],
    'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
  };
}
