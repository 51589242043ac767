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

/** RFC 8707: the one resource the token is for; by default the first resource a granted scope opens. */
export function resolveResource(deps: OAuthDeps, requestedParam: unknown, scopes: readonly string[]): string {
  const requested = singleResource(requestedParam);
  const resources = deps.resources();
  if (requested !== undefined) {
    if (!resources.some((r) => r.resource === requested)) {
      throw new AppError('invalid_target', `resource must be one of ${resources.map((r) => r.resource).join(', ')}`);
    }
    requireScopeFor(deps, requested, scopes);
    return requested;
  }
  const chosen = resources.find((r) => scopes.includes(r.scope)) ?? resources[0];
  if (!chosen) throw new AppError('invalid_target', 'this server protects no resource yet');
  return chosen.resource;
}

/**
 * A token must be usable where it is bound: its scopes include the one its resource asks for. A token for
 * /mcp with only contact:write could never be used; it is refused (invalid_scope, RFC 6749 section 5.2)
 * rather than narrowed, so that the client learns which scope to ask for.
 */
export function requireScopeFor(deps: OAuthDeps, resource: string, scopes: readonly string[]): void {
  const needed = deps.resources().find((r) => r.resource === resource)?.scope;
  if (needed !== undefined && !scopes.includes(needed)) {
    throw new AppError('invalid_scope', `scope "${scopes.join(' ')}" gives nothing at ${resource}, which needs ${needed}`);
  }
}
