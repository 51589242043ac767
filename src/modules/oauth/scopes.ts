// The scopes of the contract (section 5) and scope strings (RFC 6749 section 3.3).

export const SCOPES = {
  'contact:write': 'submit a contact inquiry',
  'mcp:invoke': 'invoke tools on the MCP server',
  'docs:read': 'read public documentation, pricing and discovery documents',
} as const;
export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

/** Space-delimited scope tokens, de-duplicated, in a stable order; undefined when any is unknown. */
export function parseScope(raw: string): Scope[] | undefined {
  const tokens = raw.split(' ').filter(Boolean);
  if (!tokens.every((token): token is Scope => Object.hasOwn(SCOPES, token))) return undefined;
  return ALL_SCOPES.filter((scope) => tokens.includes(scope));
}

export const formatScope = (scopes: readonly string[]) => scopes.join(' ');

export const isSubset = (requested: readonly string[], allowed: readonly string[]) => requested.every((s) => allowed.includes(s));
