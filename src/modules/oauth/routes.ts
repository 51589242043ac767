// The authorization server's routes: register, token, authorize (GET and POST), revoke.
import * as z from 'zod';
import { route, type RequestInput, type RouteSpec } from '../common/route-spec.js';
import { decide, requestAuthorization, type BrowserRequest } from './authorize.js';
import { TokenResponse } from './issue-tokens.js';
import type { OAuthDeps } from './oauth-deps.js';
import { ClientRegistrationRequest, ClientRegistrationResponse, registerClient } from './register.js';
import { revokeToken } from './revoke.js';
import { exchangeToken } from './token.js';
import { omitEmpty, TokenRequest } from './token-params.js';

// RFC 6749 section 5.1: token responses must not be cached.
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
const header = (input: RequestInput<unknown>, name: string) => {
  const value = input.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};
const browser = (input: RequestInput<unknown>, params: Record<string, unknown>): BrowserRequest => ({
  params,
  acceptLanguage: header(input, 'accept-language'),
  cookie: header(input, 'cookie'),
  origin: header(input, 'origin'),
  secFetchSite: header(input, 'sec-fetch-site'),
});

const RevokeRequest = z
  .looseObject({ token: z.string().optional(), token_type_hint: z.string().optional(), client_id: z.string().optional(), client_secret: z.string().optional() })
  .meta({ id: 'RevocationRequest' });
const AuthorizeForm = z.record(z.string(), z.union([z.string(), z.array(z.string())])).meta({ id: 'AuthorizeForm' });
const HTML = { description: 'The consent page (HTML), or an error page when the client or redirect URI is unknown.', contentType: 'text/html', schema: z.string() };
const ERROR_PAGE = (when: string) => ({ description: `An error page (HTML), never a redirect: ${when}.`, contentType: 'text/html', schema: z.string() });
const REDIRECT = { description: 'Back to the client with `code` or `error`, `state` and `iss` (RFC 9207).', headers: ['Location'] };

/**
 * The authorization server's routes: /oauth/register, /oauth/token, /oauth/authorize (GET, and POST for
 * the consent decision) and /oauth/revoke, each advertised in the RFC 8414 metadata.
 */
export function oauthRoutes(deps: OAuthDeps): RouteSpec[] {
  const authorizeSpec = { path: '/oauth/authorize', tags: ['oauth'], limit: 'authorize', advertiseAs: 'authorization_endpoint' } as const;
  return [
    route<ClientRegistrationRequest>({
      method: 'POST',
      path: '/oauth/register',
      operationId: 'registerClient',
      summary: 'Register an OAuth client (RFC 7591)',
      tags: ['oauth'],
      body: ClientRegistrationRequest,
      invalidBodyCode: 'invalid_client_metadata',
      bodyLimitBytes: 64 * 1024,
      responses: { 201: { description: 'The client, with its secret shown this once.', schema: ClientRegistrationResponse } },
      errors: ['invalid_client_metadata', 'invalid_redirect_uri', 'unsupported_media_type', 'payload_too_large', 'rate_limited', 'store_unavailable'],
      limit: 'register',
      cors: 'public',
      advertiseAs: 'registration_endpoint',
      handler: async ({ body }) => ({ status: 201, body: await registerClient(deps, body), headers: NO_STORE }),
    }),
    route({
      method: 'POST',
      path: '/oauth/token',
      operationId: 'requestToken',
      summary: 'Get an access token: client_credentials, authorization_code (PKCE S256) or refresh_token',
      tags: ['oauth'],
      body: TokenRequest,
      bodyTypes: ['form', 'json'],
      bodyLimitBytes: 16 * 1024,
      responses: { 200: { description: 'The tokens.', schema: TokenResponse } },
      errors: ['invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'invalid_target', 'invalid_client', 'unsupported_media_type', 'rate_limited', 'store_unavailable'],
      limit: 'token',
      cors: 'public',
      clientAuthentication: true,
      advertiseAs: 'token_endpoint',
      handler: async (input) => ({
        status: 200,
        body: await exchangeToken(deps, omitEmpty(input.body), header(input, 'authorization'), input.log),
        headers: NO_STORE,
      }),
    }),
    route({
      ...authorizeSpec,
      method: 'GET',
      operationId: 'authorize',
      summary: 'Start the authorization code flow: the consent page',
      // RFC 6749 section 4.1.2.1: an unknown client or redirect URI is told on our page, not at the URI.
      responses: { 200: HTML, 302: REDIRECT, 400: ERROR_PAGE('the client or its redirect URI is unknown (RFC 6749 section 4.1.2.1)') },
      errors: ['rate_limited', 'store_unavailable'],
      handler: async (input) => requestAuthorization(deps, browser(input, omitEmpty(input.query))),
    }),
    route({
      ...authorizeSpec,
      method: 'POST',
      operationId: 'authorizeDecision',
      summary: 'The consent decision, or an authorization request sent as a form',
      body: AuthorizeForm,
      bodyTypes: ['form'],
      bodyLimitBytes: 16 * 1024,
      responses: {
        200: HTML,
        302: REDIRECT,
        303: { ...REDIRECT, description: 'The consent decision, back to the client with `code` or `access_denied`, `state` and `iss` (RFC 9207).' },
        400: ERROR_PAGE('the client or redirect URI is unknown, or the consent expired or was already answered'),
        403: ERROR_PAGE('the form came from another site or another browser (CSRF, RFC 6749 section 10.12)'),
      },
      errors: ['unsupported_media_type', 'rate_limited', 'store_unavailable'],
      handler: async (input) => {
        const params = omitEmpty(input.body as Record<string, unknown>);
        return 'consent' in params ? decide(deps, browser(input, params)) : requestAuthorization(deps, browser(input, params));
      },
    }),
    route({
      method: 'POST',
      path: '/oauth/revoke',
      operationId: 'revokeToken',
      summary: 'Revoke an access or refresh token (RFC 7009)',
      tags: ['oauth'],
      body: RevokeRequest,
      bodyTypes: ['form', 'json'],
      bodyLimitBytes: 16 * 1024,
      responses: { 200: { description: 'Revoked, or unknown: the answer is the same.' } },
      errors: ['invalid_client', 'unsupported_media_type', 'rate_limited', 'store_unavailable'],
      // Ours, beyond the contract: it authenticates clients as the token endpoint does, so it is limited as that is.
      limit: 'revoke',
      cors: 'public',
      clientAuthentication: true,
      advertiseAs: 'revocation_endpoint',
      async handler(input) {
        const body = omitEmpty(input.body);
        await revokeToken(deps, body.token, { authorization: header(input, 'authorization'), clientId: body.client_id, clientSecret: body.client_secret });
        return { status: 200, headers: NO_STORE };
      },
    }),
  ];
}
