// Errors at the authorization endpoint (RFC 6749 section 4.1.2.1, RFC 7636 section 4.4.1, RFC 9207, D7): a page or a redirect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { startAuthorizationServer } from './support/authorization-server.js';
import { expectErrorPage, expectErrorRedirect } from './support/expectations.js';
import { OAuthTestClient, type RegisteredClient } from './support/oauth-client.js';

describe('authorization requests that must not redirect (RFC 6749 section 4.1.2.1, D7)', () => {
  let api: TestApp;
  let http: OAuthTestClient;
  let web: RegisteredClient;
  let native: RegisteredClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    http = new OAuthTestClient(api.url);
    web = await http.registerWebClient();
    native = await http.registerClient({ redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' });
  });
  afterAll(() => api.close());

  // Section 4.1.2.1: with an invalid client_id the server "MUST NOT automatically redirect the user-agent".
  it('renders an HTML error page (400) for an unknown client_id, and never redirects', async () => {
    const { url } = http.authorizationUrl({ ...web, client_id: 'no-such-client' });
    await expectErrorPage(await http.openAuthorization(url), 400);
  });

  it('renders the error page when client_id is missing', async () => {
    const { url } = http.authorizationUrl(web);
    url.searchParams.delete('client_id');
    await expectErrorPage(await http.openAuthorization(url), 400);
  });

  // Section 4.1.2.1 and RFC 9700 section 4.1.3: redirect URIs are compared exactly (loopback ports aside).
  it.each([
    ['another host', 'https://evil.example/callback'],
    ['another path', 'https://app.example/callback/evil'],
    ['an added query', 'https://app.example/callback?next=https://evil.example'],
    ['a trailing slash', 'https://app.example/callback/'],
    ['another port on https', 'https://app.example:8443/callback'],
    ['http instead of https', 'http://app.example/callback'],
    ['a fragment', 'https://app.example/callback#x'],
  ])('renders the error page, never redirecting, for a redirect_uri with %s', async (_case, redirectUri) => {
    const { url } = http.authorizationUrl(web, { redirectUri });
    await expectErrorPage(await http.openAuthorization(url), 400);
  });

  // RFC 8252 section 7.3: only the port may vary on loopback, never the host.
  it('renders the error page for a loopback redirect on another loopback host', async () => {
    const { url } = http.authorizationUrl(native, { redirectUri: 'http://localhost:5000/callback' });
    await expectErrorPage(await http.openAuthorization(url), 400);
  });

  it('renders the error page when redirect_uri is missing', async () => {
    const { url } = http.authorizationUrl(web);
    url.searchParams.delete('redirect_uri');
    await expectErrorPage(await http.openAuthorization(url), 400);
  });

  // D7: the error page is on our origin; what the request carried is escaped there.
  it('escapes the request on the error page', async () => {
    const { url } = http.authorizationUrl({ ...web, client_id: '<script>alert(1)</script>' });
    const html = await expectErrorPage(await http.openAuthorization(url), 400);
    expect(html).not.toContain('<script>');
  });
});

describe('authorization errors redirected to the client (RFC 6749 section 4.1.2.1, RFC 9207 section 2)', () => {
  let api: TestApp;
  let http: OAuthTestClient;
  let web: RegisteredClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    http = new OAuthTestClient(api.url);
    web = await http.registerWebClient({ scope: 'contact:write docs:read' });
  });
  afterAll(() => api.close());
  const to = 'https://app.example/callback';

  const redirectedError = async (request: Parameters<OAuthTestClient['authorizationUrl']>[1], error: string, edit?: (url: URL) => void) => {
    const { url, state } = http.authorizationUrl(web, request);
    edit?.(url);
    return expectErrorRedirect(await http.openAuthorization(url), { to, error, state, iss: api.url });
  };

  // Section 4.1.2.1: unsupported_response_type.
  it('redirects unsupported_response_type for response_type=token, with state and iss', async () => {
    await redirectedError({ extra: { response_type: 'token' } }, 'unsupported_response_type');
  });

  it('redirects invalid_request when response_type is missing', async () => {
    await redirectedError({}, 'invalid_request', (url) => url.searchParams.delete('response_type'));
  });

  // RFC 7636 section 4.4.1: PKCE is required, and only S256 is accepted (RFC 9700 section 2.1.1).
  it('redirects invalid_request when code_challenge is missing', async () => {
    await redirectedError({}, 'invalid_request', (url) => url.searchParams.delete('code_challenge'));
  });

  it('refuses the plain code_challenge_method with invalid_request', async () => {
    await redirectedError({ extra: { code_challenge_method: 'plain' } }, 'invalid_request');
  });

  // RFC 7636 section 4.3: an omitted method means plain, which is refused too.
  it('refuses a missing code_challenge_method with invalid_request', async () => {
    await redirectedError({}, 'invalid_request', (url) => url.searchParams.delete('code_challenge_method'));
  });

  // RFC 7636 section 4.2: an S256 challenge is 43 base64url characters.
  it('refuses a code_challenge that is too short with invalid_request', async () => {
    await redirectedError({ extra: { code_challenge: 'short' } }, 'invalid_request');
  });

  // Section 4.1.2.1: invalid_scope for an unknown scope or one beyond the registration (D5).
  it('redirects invalid_scope for an unknown scope', async () => {
    await redirectedError({ scope: 'contact:write admin' }, 'invalid_scope');
  });

  it('redirects invalid_scope for a scope the client did not register', async () => {
    await redirectedError({ scope: 'mcp:invoke' }, 'invalid_scope');
  });

  // RFC 8707 section 2: invalid_target for a resource this server does not protect.
  it('redirects invalid_target for an unknown resource', async () => {
    await redirectedError({ resource: 'https://elsewhere.example/api' }, 'invalid_target');
  });

  // RFC 8707 section 2: resource may be repeated; one the server cannot serve is invalid_target.
  it('redirects invalid_target, not invalid_request, for two resource parameters', async () => {
    await redirectedError({ resource: `${api.url}/api/contact` }, 'invalid_target', (url) => url.searchParams.append('resource', `${api.url}/mcp`));
  });

  // RFC 6749 section 3.1: request parameters must not be included more than once.
  it('redirects invalid_request when a parameter is repeated', async () => {
    await redirectedError({ scope: 'contact:write' }, 'invalid_request', (url) => url.searchParams.append('scope', 'docs:read'));
  });

  // Section 4.1.2.1: unauthorized_client when the client may not use this grant.
  it('redirects unauthorized_client for a client registered only for client_credentials', async () => {
    const machine = await http.registerMachineClient({ redirect_uris: [to] });
    const { url, state } = http.authorizationUrl(machine);
    expectErrorRedirect(await http.openAuthorization(url), { to, error: 'unauthorized_client', state, iss: api.url });
  });

  // Section 4.1.2.1: state is present only "if a state parameter was present in the client authorization request".
  it('omits state from an error redirect when none was sent, but keeps iss', async () => {
    await redirectedError({ state: null, extra: { response_type: 'token' } }, 'unsupported_response_type');
  });

  // Section 4.1.2.1: the visitor's refusal is access_denied, with state and iss (RFC 9207 section 2).
  it('redirects access_denied when the visitor denies', async () => {
    const result = await http.authorizeAndConsent(web, { state: 'deny-me' }, 'deny');
    expect(result.callback.href.split('?', 1)[0]).toBe(to);
    expect(Object.fromEntries(result.callback.searchParams)).toMatchObject({ error: 'access_denied', state: 'deny-me', iss: api.url });
    expect(result.callback.searchParams.has('code')).toBe(false);
  });

  // RFC 8252 section 7.1: errors reach a native app on its private-use scheme too.
  it('redirects errors to a private-use scheme redirect URI', async () => {
    const app = await http.registerClient({ redirect_uris: ['com.example.app:/callback'], token_endpoint_auth_method: 'none' });
    const { url, state } = http.authorizationUrl(app, { extra: { code_challenge_method: 'plain' } });
    expectErrorRedirect(await http.openAuthorization(url), { to: 'com.example.app:/callback', error: 'invalid_request', state, iss: api.url });
  });

  // RFC 6749 section 3.1: the endpoint may also take the request as a POSTed form.
  it('accepts the authorization request as a form POST', async () => {
    const { url } = http.authorizationUrl(web);
    const response = await fetch(`${api.url}/oauth/authorize`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: url.searchParams });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('name="consent"');
  });
});
