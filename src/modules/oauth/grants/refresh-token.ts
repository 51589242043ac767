// The refresh_token grant (RFC 6749 section 6) with rotation and reuse detection (D4, RFC 9700 4.14.2).
import { AppError, invalidRequest } from '../../../errors.js';
import type { Client } from '../../../ports/oauth-store.js';
import type { RequestLog } from '../../common/route-spec.js';
import { grantedScopes, mintTokens, requireScopeFor, sameResource, singleResource, type TokenResponse } from '../issue-tokens.js';
import type { OAuthDeps } from '../oauth-deps.js';
import { tokenKey } from '../secrets.js';
import type { TokenParams } from '../token-params.js';

const invalidGrant = (description: string) => new AppError('invalid_grant', description);

/**
 * Rotates a refresh token (RFC 6749 section 6, D4): the scope may narrow but never widen, and an older token
 * of the chain presented again revokes the whole grant (RFC 9700 section 4.14.2). Refusals throw AppError.
 */
export async function refreshTokenGrant(deps: OAuthDeps, client: Client, params: TokenParams, log: RequestLog): Promise<TokenResponse> {
  if (!params.refresh_token) throw invalidRequest('refresh_token is required');
  const now = deps.clock.now();
  const refresh = await deps.store.getToken(tokenKey(params.refresh_token));
  if (!refresh || refresh.kind !== 'refresh' || refresh.clientId !== client.clientId) throw invalidGrant('the refresh token is unknown');
  if (refresh.state !== 'active') return refused(deps, log, client, refresh.grantId, refresh.state);
  if (refresh.expiresAt <= now) throw invalidGrant('the refresh token has expired');
  // Section 6: a narrower scope may be asked for, never a wider one.
  const scopes = grantedScopes(params.scope, refresh.scope);
  const resource = singleResource(params.resource);
  if (resource !== undefined && !sameResource(deps, resource, refresh.resource)) throw new AppError('invalid_target', `the grant is for ${refresh.resource}`);
  requireScopeFor(deps, refresh.resource, scopes);

  const { response, rows } = mintTokens(deps, {
    client,
    grantId: refresh.grantId,
    scopes,
    resource: refresh.resource,
    withRefresh: true,
    previousRefreshHash: refresh.tokenHash,
  });
  // The successor keeps the grant's full scope so that narrowing once does not narrow forever.
  rows[1]!.scope = refresh.scope;
  // The store checks again inside its transaction: a revocation or a rotation may have run since the read.
  const outcome = await deps.store.rotateRefresh(refresh, now, rows);
  if (outcome !== 'rotated') return refused(deps, log, client, refresh.grantId, outcome);
  return response;
}

async function refused(deps: OAuthDeps, log: RequestLog, client: Client, grantId: string, state: 'revoked' | 'superseded'): Promise<never> {
  if (state === 'revoked') throw invalidGrant('the refresh token is revoked');
  // An older token of a rotated chain came back: someone holds a copy. End the whole grant.
  await deps.store.revokeGrant(grantId, deps.clock.now());
  log.warn({ client: client.clientId }, 'refresh token reused after rotation; its grant is revoked');
  throw invalidGrant('the refresh token was already rotated; the grant is revoked');
}
