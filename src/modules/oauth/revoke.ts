// Token revocation (RFC 7009): the client's own tokens only; unknown tokens are "revoked" too.
import { invalidRequest } from '../../errors.js';
import { authenticateClient, type PresentedCredentials } from './client-auth.js';
import type { OAuthDeps } from './oauth-deps.js';
import { tokenKey } from './secrets.js';

/**
 * Authenticates the client, then revokes its token; a refresh token takes its whole grant with it. A token
 * unknown or another client's changes nothing and is no error (RFC 7009 section 2.2).
 */
export async function revokeToken(deps: OAuthDeps, token: string | undefined, credentials: PresentedCredentials): Promise<void> {
  const client = await authenticateClient(deps, credentials);
  if (!token) throw invalidRequest('token is required');
  // Section 2.1: token_type_hint is only a hint; both kinds are looked up by the same hash.
  const found = await deps.store.getToken(tokenKey(token));
  // Section 2.2: an unknown token, or another client's, answers 200 and changes nothing.
  if (!found || found.clientId !== client.clientId) return;
  // Section 2.1: revoking a refresh token also revokes the grant's access tokens.
  if (found.kind === 'refresh') await deps.store.revokeGrant(found.grantId, deps.clock.now());
  else await deps.store.revokeToken(found.tokenHash);
}
