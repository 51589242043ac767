// Bearer access tokens on protected routes (RFC 6750), with RFC 9728 resource metadata in the challenge.
import { AppError } from '../errors.js';
import type { Principal, TokenVerifier } from '../ports/token-verifier.js';
import type { AuthSpec } from '../modules/common/route-spec.js';
import { aliasAdvice, type PublicOrigin } from '../modules/common/public-origin.js';

// RFC 6750 section 2.1: credentials = "Bearer" 1*SP b64token; the scheme is case-insensitive (RFC 9110 11.1).
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export interface ProtectedResource {
  /** The RFC 8707 resource identifier tokens must be bound to. */
  resource: string;
  /** Where RFC 9728 metadata for the resource is served. */
  metadataUrl: string;
  /** PUBLIC_URL: the API as a whole, the root metadata document's resource, which covers every route. */
  origin: PublicOrigin;
}

/**
 * The principal of a valid Bearer token for `target` with `auth.scope`.
 * `host` is the request's Host: a client that came by a loopback alias is told the address to use.
 */
export async function verifyBearer(header: string, auth: AuthSpec, target: ProtectedResource, tokens: TokenVerifier, host: string | undefined): Promise<Principal> {
  // Every challenge names the scope the route needs (RFC 6750 section 3; MCP 2026-07-28 authorization, "Scope
  // Selection Strategy"), so that a client asks for it at once, after a 401 as after a 403.
  const challenge = (error: string, description: string) => `Bearer error="${error}", error_description="${description}", scope="${auth.scope}", resource_metadata="${target.metadataUrl}"`;
  const reject = (code: 'invalid_token' | 'insufficient_scope', description: string) => {
    // The host is one of this server's loopback names (isAlias), so it is safe in the quoted string.
    const described = code === 'invalid_token' && target.origin.isAlias(host) ? `${description}; ${aliasAdvice(target.origin, host!.toLowerCase())}` : description;
    return new AppError(code, described, { 'www-authenticate': challenge(code, described) }, code === 'insufficient_scope' ? auth.insufficientScopeStatus : undefined);
  };

  const token = BEARER.exec(header)?.[1];
  if (!token) throw reject('invalid_token', 'the Authorization header must be: Bearer <access token>');
  const principal = await tokens.verify(token);
  if (!principal) throw reject('invalid_token', 'the access token is unknown, expired or revoked');
  // RFC 8707: bound to this route, or to the API as a whole (RFC 9728 section 3: the root document's resource).
  if (principal.resource !== target.resource && principal.resource !== target.origin.url) {
    throw reject('invalid_token', `the access token was not issued for ${target.resource} nor for ${target.origin.url}`);
  }
  if (!principal.scopes.includes(auth.scope)) {
    throw reject('insufficient_scope', `the access token lacks the scope ${auth.scope}`);
  }
  return principal;
}
