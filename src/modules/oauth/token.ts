// The token endpoint (RFC 6749 section 3.2) as a named pipeline: parse, authenticate, check, dispatch.
import { AppError, invalidRequest } from '../../errors.js';
import type { TokenGrant } from '../../ports/metrics.js';
import { isMetadataDocumentClientId, type Client } from '../../ports/oauth-store.js';
import type { RequestLog } from '../common/route-spec.js';
import { authenticateClient } from './client-auth.js';
import { authorizationCodeGrant } from './grants/authorization-code.js';
import { clientCredentialsGrant } from './grants/client-credentials.js';
import { refreshTokenGrant } from './grants/refresh-token.js';
import type { TokenResponse } from './issue-tokens.js';
import type { OAuthDeps } from './oauth-deps.js';
import type { TokenParams } from './token-params.js';

/** `log` is the token request's: a grant revoked for a replay is told there, with the request's id. */
type Grant = (deps: OAuthDeps, client: Client, params: TokenParams, log: RequestLog) => Promise<TokenResponse>;

const GRANTS: Readonly<Record<string, Grant>> = {
  client_credentials: clientCredentialsGrant,
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
};

// Recording every use would write on every token request; an hour's precision is enough for D6 pruning.
const TOUCH_INTERVAL_MS = 3_600_000;

/**
 * The token endpoint (RFC 6749 section 3.2): authenticates the client, checks it is registered for the grant
 * type and runs that grant; refusals throw AppError. A registered client's last use is written at most once
 * per TOUCH_INTERVAL_MS.
 */
export async function exchangeToken(deps: OAuthDeps, params: TokenParams, authorization: string | undefined, log: RequestLog): Promise<TokenResponse> {
  if (!params.grant_type) throw invalidRequest('grant_type is required');
  const grant = Object.hasOwn(GRANTS, params.grant_type) ? GRANTS[params.grant_type] : undefined;
  if (!grant) throw new AppError('unsupported_grant_type', `grant_type must be one of ${Object.keys(GRANTS).join(', ')}`);
  const client = await authenticateClient(deps, { authorization, clientId: params.client_id, clientSecret: params.client_secret });
  if (!client.grantTypes.includes(params.grant_type)) {
    throw new AppError('unauthorized_client', `this client is not registered for ${params.grant_type}`);
  }
  const response = await grant(deps, client, params, log);
  deps.metrics.tokenIssued(params.grant_type as TokenGrant);
  const now = deps.clock.now();
  // A documented client (D13) has no row to touch: its document, not its last use, decides whether it is served.
  if (isMetadataDocumentClientId(client.clientId)) return response;
  if (client.lastUsedAt === null || now - client.lastUsedAt > TOUCH_INTERVAL_MS) await deps.store.touchClient(client.clientId, now);
  return response;
}
