// The authorization_code grant with PKCE S256 (RFC 6749 section 4.1.3, RFC 7636 section 4.6).
import { createHash } from 'node:crypto';
import { AppError, invalidRequest } from '../../../errors.js';
import type { Client } from '../../../ports/oauth-store.js';
import type { RequestLog } from '../../common/route-spec.js';
import { clientGone } from '../client-auth.js';
import { mintTokens, sameResource, singleResource, type TokenResponse } from '../issue-tokens.js';
import type { OAuthDeps } from '../oauth-deps.js';
import { sha256 } from '../secrets.js';
import type { TokenParams } from '../token-params.js';

// RFC 7636 section 4.1: 43-128 unreserved characters.
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const invalidGrant = (description: string) => new AppError('invalid_grant', description);

/**
 * Exchanges a code and its PKCE verifier (RFC 6749 section 4.1.3, RFC 7636 section 4.6). The code is spent
 * first, whatever fails after; one presented twice revokes its grant's tokens. Refusals throw AppError.
 */
export async function authorizationCodeGrant(deps: OAuthDeps, client: Client, params: TokenParams, log: RequestLog): Promise<TokenResponse> {
  if (!params.code) throw invalidRequest('code is required');
  if (!params.redirect_uri) throw invalidRequest('redirect_uri is required');
  if (!params.code_verifier) throw invalidRequest('code_verifier is required (PKCE, RFC 7636)');
  const now = deps.clock.now();

  // Taken first and atomically: whatever fails below, the code is spent (RFC 9700 section 2.1.1).
  const code = await deps.store.consumeCode(sha256(params.code), now);
  if (!code) throw invalidGrant('the code is unknown or expired');
  if ('replayed' in code) {
    // RFC 6749 section 4.1.2: a code used twice revokes the tokens it already issued.
    await deps.store.revokeGrant(code.replayed, now);
    log.warn({ client: client.clientId }, 'authorization code replayed; its grant is revoked');
    throw invalidGrant('the code was already used; its tokens are revoked');
  }
  if (code.clientId !== client.clientId) throw invalidGrant('the code was issued to another client');
  if (code.redirectUri !== params.redirect_uri) throw invalidGrant('redirect_uri differs from the authorization request');
  if (!VERIFIER.test(params.code_verifier) || s256(params.code_verifier) !== code.codeChallenge) {
    throw invalidGrant('the code_verifier does not match the code_challenge');
  }
  const resource = singleResource(params.resource);
  if (resource !== undefined && !sameResource(deps, resource, code.resource)) throw new AppError('invalid_target', `the code was issued for ${code.resource}`);

  const { response, rows } = mintTokens(deps, {
    client,
    grantId: code.grantId,
    scopes: code.scope.split(' '),
    resource: code.resource,
    withRefresh: client.grantTypes.includes('refresh_token'),
  });
  if (!(await deps.store.saveTokens(rows))) throw clientGone();
  // A replay racing this exchange may have revoked the grant before these rows were written.
  if (await deps.store.isGrantRevoked(code.grantId)) {
    await deps.store.revokeGrant(code.grantId, deps.clock.now());
    throw invalidGrant('the code was used twice at once; its tokens are revoked');
  }
  return response;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');
