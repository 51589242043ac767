// Minting access and refresh tokens for a grant, and the RFC 6749 section 5.1 response.
import * as z from 'zod';
import { AppError } from '../../errors.js';
import type { Client, Token } from '../../ports/oauth-store.js';
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS, type OAuthDeps } from './oauth-deps.js';
import { formatScope, isSubset, parseScope, type Scope } from './scopes.js';
import { newToken, tokenKey } from './secrets.js';

export const TokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.int(),
    scope: z.string().optional(),
    refresh_token: z.string().optional(),
    resource: z.string().optional(),
  })
  .meta({
    id: 'TokenResponse',
    examples: [{ access_token: 'mF_9.B5f-4.1JqM', token_type: 'Bearer', expires_in: 3600, scope: 'contact:write', resource: 'https://api.example.com/api/contact' }],
  });
export type TokenResponse = z.output<typeof TokenResponse>;

export interface Mint {
  client: Client;
  grantId: string;
  scopes: readonly string[];
  resource: string;
  withRefresh: boolean;
  /** The refresh token being rotated, if any. */
  previousRefreshHash?: string;
}

/**
 * New tokens for a grant, an access token and with `withRefresh` a refresh token: the response (RFC 6749
 * section 5.1) and the rows for the caller to store. Nothing is stored here.
 */
export function mintTokens(deps: OAuthDeps, mint: Mint): { response: TokenResponse; rows: Token[] } {
  const now = deps.clock.now();
  const scope = formatScope(mint.scopes);
  const row = (kind: Token['kind'], secret: string, ttlSeconds: number, previousHash: string | null): Token => ({
    tokenHash: tokenKey(secret),
    kind,
    grantId: mint.grantId,
    clientId: mint.client.clientId,
    scope,
    resource: mint.resource,
    expiresAt: now + ttlSeconds * 1000,
    state: 'active',
    previousHash,
    usedAt: null,
  });
  const accessToken = newToken(deps.random, now);
  const rows = [row('access', accessToken, ACCESS_TOKEN_TTL_SECONDS, null)];
  const response: TokenResponse = { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope, resource: mint.resource };
  if (mint.withRefresh) {
    const refreshToken = newToken(deps.random, now);
    rows.push(row('refresh', refreshToken, REFRESH_TOKEN_TTL_SECONDS, mint.previousRefreshHash ?? null));
    response.refresh_token = refreshToken;
  }
  return { response, rows };
}

/** D5: the requested scope, which must lie within `allowed`; all of `allowed` when none is requested. */
export function grantedScopes(requested: string | undefined, allowed: string): Scope[] {
  const allowedScopes = parseScope(allowed) ?? [];
  const scopes = requested === undefined ? [] : parseScope(requested);
  // Only words the server ignores (scopes.ts) is the same as no scope (RFC 6749 section 3.3).
  if (scopes?.length === 0) return allowedScopes;
  if (!scopes || !isSubset(scopes, allowedScopes)) {
    throw new AppError('invalid_scope', `scope must be within "${allowed}"`);
  }
  return scopes;
}

/** The one `resource` asked for, if any: a token is bound to one (RFC 8707 section 2, D4). */
export function singleResource(requested: unknown): string | undefined {
  if (Array.isArray(requested)) throw new AppError('invalid_target', 'send resource once: each token is bound to one resource');
  return typeof requested === 'string' ? requested : undefined;
}

/**
 * The resource identifiers a token may be bound to (RFC 8707 section 2), each the `resource` of one of
 * the protected-resource documents (RFC 9728 section 3): the API as a whole, PUBLIC_URL itself (the
 * root document, with every scope), or one protected route (`{PUBLIC_URL}/mcp`, `/api/contact`).
 * The canonical form of `requested`, or undefined when it names none of them. An empty path and "/"
 * are the same resource (RFC 3986 section 6.2.3), so `{PUBLIC_URL}/` names the API too.
 */
export function canonicalResource(deps: OAuthDeps, requested: string): string | undefined {
  if (requested === deps.issuer || requested === `${deps.issuer}/`) return deps.issuer;
  return deps.resources().find((r) => r.resource === requested)?.resource;
}

/**
 * RFC 8707: the one resource the token is for. Without `resource` it is the API as a whole, where every
 * scope the client may hold is honoured: the token works on every route whose scope it carries.
 */
export function resolveResource(deps: OAuthDeps, requestedParam: unknown, scopes: readonly string[]): string {
  const requested = singleResource(requestedParam);
  if (requested === undefined) return deps.issuer;
  const resource = canonicalResource(deps, requested);
  if (resource === undefined) {
    throw new AppError('invalid_target', `resource must be one of ${[deps.issuer, ...deps.resources().map((r) => r.resource)].join(', ')}`);
  }
  requireScopeFor(deps, resource, scopes);
  return resource;
}

/** Whether a `resource` sent again at the token endpoint names the grant's own (RFC 8707 section 2.2). */
export function sameResource(deps: OAuthDeps, requested: string, granted: string): boolean {
  return canonicalResource(deps, requested) === granted;
}

/**
 * A token must be usable where it is bound: its scopes include the one its route asks for. A token for
 * /mcp with only contact:write could never be used; it is refused (invalid_scope, RFC 6749 section 5.2)
 * rather than narrowed, so that the client learns which scope to ask for. The API as a whole honours
 * every scope (its document lists them all), so a token for it needs none in particular.
 */
export function requireScopeFor(deps: OAuthDeps, resource: string, scopes: readonly string[]): void {
  const needed = deps.resources().find((r) => r.resource === resource)?.scope;
  if (needed !== undefined && !scopes.includes(needed)) {
    throw new AppError('invalid_scope', `scope "${scopes.join(' ')}" gives nothing at ${resource}, which needs ${needed}`);
  }
}
