// Client authentication at the token and revocation endpoints (RFC 6749 sections 2.3.1 and 3.2.1).
import { AppError, invalidRequest } from '../../errors.js';
import type { Client } from '../../ports/oauth-store.js';
import { findClient } from './find-client.js';
import type { OAuthDeps } from './oauth-deps.js';
import { secretMatches } from './secrets.js';

export interface PresentedCredentials {
  authorization: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
}

const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="portico", charset="UTF-8"' };
const invalidClient = (description: string) => new AppError('invalid_client', description, BASIC_CHALLENGE);
const AUTHENTICATION_FAILED = 'client authentication failed';
// Compared against when the client is unknown, so that refusal costs what a wrong secret costs.
const UNKNOWN_CLIENT_HASH = '0'.repeat(64);

/**
 * The authenticated client. Confidential clients may use HTTP Basic or the form fields (both are
 * the same secret over TLS), never both at once; public clients send only `client_id`.
 */
export async function authenticateClient(deps: OAuthDeps, presented: PresentedCredentials): Promise<Client> {
  const basic = presented.authorization === undefined ? undefined : parseBasic(presented.authorization);
  if (basic && presented.clientSecret !== undefined) throw invalidRequest('use one client authentication method: HTTP Basic or client_secret, not both');
  if (basic && presented.clientId !== undefined && presented.clientId !== basic.clientId) throw invalidRequest('client_id differs from the HTTP Basic user name');

  const clientId = basic?.clientId ?? presented.clientId;
  if (!clientId) throw invalidClient('client authentication is required (HTTP Basic, or client_id and client_secret)');
  const client = await findClient(deps, clientId).catch((error: unknown) => {
    // A metadata document that cannot be used (D13) is a failed client authentication like any other:
    // RFC 6749 section 5.2's 401 carries the challenge.
    throw error instanceof AppError && error.code === 'invalid_client' ? Object.assign(invalidClient(error.description), { cause: error }) : error;
  });
  // An unknown client and a wrong secret get the same answer, after the same work: the refusal tells an
  // attacker nothing about which client ids exist (RFC 6749 section 5.2 needs no more than invalid_client).
  if (!client) {
    secretMatches(basic?.clientSecret ?? presented.clientSecret ?? '', UNKNOWN_CLIENT_HASH);
    throw invalidClient(AUTHENTICATION_FAILED);
  }

  const secret = basic?.clientSecret ?? presented.clientSecret;
  if (client.secretHash === null) {
    if (secret !== undefined) throw invalidClient('this is a public client: it must not send a secret');
    return client;
  }
  if (secret === undefined) throw invalidClient('this client must authenticate with its client_secret');
  if (!secretMatches(secret, client.secretHash)) throw invalidClient(AUTHENTICATION_FAILED);
  return client;
}

/**
 * The answer when the store refuses tokens because the client was deleted after it authenticated
 * (possibly on another node): the same as for an unknown client.
 */
export const clientGone = () => invalidClient(AUTHENTICATION_FAILED);

/** RFC 6749 section 2.3.1: Basic credentials whose parts are form-urlencoded before base64. */
function parseBasic(header: string): { clientId: string; clientSecret: string } {
  const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  if (!match) throw invalidClient('the Authorization header must be HTTP Basic client credentials');
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidClient('HTTP Basic credentials must be client_id:client_secret');
  try {
    const unescape = (part: string) => (/[%+]/.test(part) ? decodeURIComponent(part.replace(/\+/g, ' ')) : part);
    return { clientId: unescape(decoded.slice(0, colon)), clientSecret: unescape(decoded.slice(colon + 1)) };
  } catch {
    throw invalidClient('HTTP Basic credentials are not valid form-urlencoded text');
  }
}
