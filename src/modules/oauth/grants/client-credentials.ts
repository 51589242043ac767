// The client_credentials grant (RFC 6749 section 4.4): a confidential client acting for itself.
import { AppError } from '../../../errors.js';
import type { Client } from '../../../ports/oauth-store.js';
import { uuidV7 } from '../../../ports/random.js';
import { clientGone } from '../client-auth.js';
import { grantedScopes, mintTokens, resolveResource, type TokenResponse } from '../issue-tokens.js';
import type { OAuthDeps } from '../oauth-deps.js';
import type { TokenParams } from '../token-params.js';

/**
 * An access token for a confidential client acting for itself (RFC 6749 section 4.4), never a refresh
 * token; a public client is refused (unauthorized_client), and the scope must lie within the client's.
 */
export async function clientCredentialsGrant(deps: OAuthDeps, client: Client, params: TokenParams): Promise<TokenResponse> {
  if (client.secretHash === null) throw new AppError('unauthorized_client', 'public clients cannot use client_credentials');
  const scopes = grantedScopes(params.scope, client.scope);
  const resource = resolveResource(deps, params.resource, scopes);
  // Section 4.4.3: no refresh token; the client can always ask again.
  const { response, rows } = mintTokens(deps, { client, grantId: uuidV7(deps.clock.now(), deps.random), scopes, resource, withRefresh: false });
  if (!(await deps.store.saveTokens(rows))) throw clientGone();
  return response;
}
