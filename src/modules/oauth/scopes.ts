// The scopes of the contract (section 5) and scope strings (RFC 6749 section 3.3).

export const SCOPES = {
  'contact:write': 'submit a contact inquiry',
  'mcp:invoke': 'invoke tools on the MCP server',
  'docs:read': 'read public documentation, pricing and discovery documents',
} as const;
export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

/**
 * Scope words that hosts send by habit, meant for OpenID providers: `openid` (OpenID Connect Core 1.0
 * section 3.1.2.1), `profile email address phone` (section 5.4) and `offline_access` (section 11).
 * RFC 6749 section 3.3 lets the server ignore requested scope in part; these are ignored, never refused,
 * and the token response's `scope` says what was granted. Refresh tokens follow the grant types.
 */
const IGNORED_SCOPES = new Set(['openid', 'profile', 'email', 'address', 'phone', 'offline_access']);

/**
 * Space-delimited scope tokens, de-duplicated, in a stable order, the ignored words left out (possibly
 * leaving none); undefined when any other token is unknown.
 */
export function parseScope(raw: string): Scope[] | undefined {
  const tokens = raw.split(' ').filter((token) => token && !IGNORED_SCOPES.has(token));
  if (!tokens.every((token): token is Scope => Object.hasOwn(SCOPES, token))) return undefined;
  return ALL_SCOPES.filter((scope) => tokens.includes(scope));
}

/** Our scopes among `raw`, any other token ignored; all of them when `raw` names none (a document's wish). */
export function narrowScope(raw: string | undefined): Scope[] {
  const ours = ALL_SCOPES.filter((scope) => raw?.split(' ').includes(scope));
  return ours.length ? ours : ALL_SCOPES;
}

export const formatScope = (scopes: readonly string[]) => scopes.join(' ');

export const isSubset = (requested: readonly string[], allowed: readonly string[]) => requested.every((s) => allowed.includes(s));
