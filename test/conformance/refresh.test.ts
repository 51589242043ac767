// The refresh_token grant (RFC 6749 section 6): rotation on every use, a retry window, and reuse detection (D4, RFC 9700).
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { discover, insecure, movableClock, startAuthorizationServer } from './support/authorization-server.js';
import { expectOAuthError } from './support/expectations.js';
import { OAuthTestClient, type RegisteredClient } from './support/oauth-client.js';

describe('refresh with a strict client (RFC 6749 section 6)', () => {
  let api: TestApp;
  let as: oauth.AuthorizationServer;
  let http: OAuthTestClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    as = await discover(api);
    http = new OAuthTestClient(api.url);
  });
  afterAll(() => api.close());

  // RFC 9700 section 4.14.2: refresh tokens of public clients are sender-constrained or rotated; here every refresh rotates.
  it('rotates: each refresh returns a new refresh token and a working access token', async () => {
    const registered = await http.registerClient({ redirect_uris: ['http://127.0.0.1/callback'], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' });
    const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
    let { refresh_token: refreshToken } = await http.approvedTokens(registered);
    const seen = new Set([refreshToken]);
    for (let round = 0; round < 3; round++) {
      const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, insecure);
      const tokens = await oauth.processRefreshTokenResponse(as, client, response);
      expect(tokens.token_type).toBe('bearer');
      expect(tokens.refresh_token).toEqual(expect.any(String));
      expect(seen.has(tokens.refresh_token!)).toBe(false);
      seen.add(tokens.refresh_token!);
      refreshToken = tokens.refresh_token!;
      expect((await http.contact(tokens.access_token)).status).toBe(200);
    }
  });

  // RFC 6749 section 6: a confidential client authenticates when refreshing (HTTP Basic through oauth4webapi).
  it('refreshes for a confidential client authenticating with client_secret_basic', async () => {
    const registered = await http.registerWebClient();
    const client: oauth.Client = { client_id: registered.client_id };
    const { refresh_token } = await http.approvedTokens(registered);
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretBasic(registered.client_secret!), refresh_token, insecure);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const tokens = await oauth.processRefreshTokenResponse(as, client, response);
    expect(tokens.refresh_token).not.toBe(refresh_token);
  });
});

describe('refresh rules over raw HTTP (RFC 6749 section 6, D4)', () => {
  const clock = movableClock();
  let api: TestApp;
  let http: OAuthTestClient;
  let web: RegisteredClient;
  beforeAll(async () => {
    api = await startAuthorizationServer({}, { clock });
    http = new OAuthTestClient(api.url);
    web = await http.registerWebClient({ scope: 'contact:write docs:read' });
  });
  afterAll(() => api.close());

  const refreshOk = async (refreshToken: string, extra = {}) => {
    const response = await http.refresh(web, refreshToken, extra);
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body as { access_token: string; refresh_token: string; scope: string; resource: string };
  };

  // D4: the previous refresh token stays usable until its successor is first used, so a lost response can be retried.
  it('lets the previous refresh token be retried while its successor is unused', async () => {
    const { refresh_token: first } = await http.approvedTokens(web);
    await refreshOk(first);
    const retried = await refreshOk(first);
    expect((await http.contact(retried.access_token)).status).toBe(200);
    await refreshOk(retried.refresh_token);
  });

  // D4 and RFC 9700 section 4.14.2: once the successor was used, the old token is a replay: invalid_grant, whole grant revoked.
  it('refuses a refresh token whose successor was used, and revokes the newest refresh and access tokens', async () => {
    const { refresh_token: first } = await http.approvedTokens(web);
    const second = await refreshOk(first);
    const third = await refreshOk(second.refresh_token);
    expect((await http.contact(third.access_token)).status).toBe(200);

    await expectOAuthError(await http.refresh(web, first), 400, 'invalid_grant');
    expect((await http.contact(third.access_token)).status).toBe(401);
    await expectOAuthError(await http.refresh(web, third.refresh_token), 400, 'invalid_grant');
  });

  // D4: after a retry, the chain continues from the retried answer; the token before it becomes a replay.
  it('treats the first token as replayed once the retried successor was used', async () => {
    const { refresh_token: first } = await http.approvedTokens(web);
    await refreshOk(first);
    const retried = await refreshOk(first);
    const next = await refreshOk(retried.refresh_token);
    await expectOAuthError(await http.refresh(web, first), 400, 'invalid_grant');
    expect((await http.contact(next.access_token)).status).toBe(401);
  });

  // RFC 6749 section 6: the refresh token must have been issued to the authenticated client.
  it("answers invalid_grant to another client's refresh token, leaving the grant intact", async () => {
    const { refresh_token } = await http.approvedTokens(web);
    const other = await http.registerWebClient();
    await expectOAuthError(await http.refresh(other, refresh_token), 400, 'invalid_grant');
    await refreshOk(refresh_token);
  });

  // RFC 6749 section 6: the requested scope must not exceed the original grant; a narrower one is fine.
  it('grants a narrower scope and refuses a wider one with invalid_scope', async () => {
    const { refresh_token } = await http.approvedTokens(web, { scope: 'contact:write' });
    await expectOAuthError(await http.refresh(web, refresh_token, { scope: 'contact:write docs:read' }), 400, 'invalid_scope');
    const narrowed = await refreshOk(refresh_token, { scope: 'contact:write' });
    expect(narrowed.scope).toBe('contact:write');
  });

  // RFC 6749 section 6: narrowing once does not narrow the grant forever.
  it('keeps the full grant scope available after a narrowed refresh', async () => {
    const { refresh_token } = await http.approvedTokens(web);
    const narrowed = await refreshOk(refresh_token, { scope: 'contact:write' });
    expect(narrowed.scope).toBe('contact:write');
    expect((await refreshOk(narrowed.refresh_token)).scope).toBe('contact:write docs:read');
  });

  // RFC 6749 section 5.1 (refresh_token is optional) and RFC 7591 section 2: only clients registered for it get one.
  it('issues no refresh token to a client not registered for the refresh_token grant', async () => {
    const codeOnly = await http.registerWebClient({ grant_types: ['authorization_code'] });
    const response = await http.exchange(codeOnly, await http.authorizeAndConsent(codeOnly));
    expect(await response.json()).not.toHaveProperty('refresh_token');
  });

  // RFC 6749 sections 2.3.1 and 6: a confidential client must authenticate to refresh.
  it('answers 401 invalid_client when a confidential client refreshes without its secret', async () => {
    const { refresh_token } = await http.approvedTokens(web);
    const response = await http.token({ grant_type: 'refresh_token', refresh_token, client_id: web.client_id });
    await expectOAuthError(response, 401, 'invalid_client');
  });

  // RFC 6749 section 5.2: an unknown refresh token is invalid_grant.
  it('answers invalid_grant to a refresh token that was never issued', async () => {
    await expectOAuthError(await http.refresh(web, 'B'.repeat(43)), 400, 'invalid_grant');
  });

  // RFC 6749 section 5.2: an access token is not a refresh token.
  it('answers invalid_grant to an access token presented as a refresh token', async () => {
    const { access_token } = await http.approvedTokens(web);
    await expectOAuthError(await http.refresh(web, access_token), 400, 'invalid_grant');
  });

  // RFC 8707 section 2: a refresh may not move the grant to another resource.
  it('answers invalid_target when the refresh names another resource', async () => {
    const { refresh_token } = await http.approvedTokens(web);
    await expectOAuthError(await http.refresh(web, refresh_token, { resource: 'https://elsewhere.example/api' }), 400, 'invalid_target');
  });

  // D4: refresh tokens live 30 days (this test moves the clock, so it runs last).
  it('answers invalid_grant to a refresh token older than 30 days', async () => {
    const { refresh_token } = await http.approvedTokens(web);
    clock.advance(30 * 86400 + 1);
    await expectOAuthError(await http.refresh(web, refresh_token), 400, 'invalid_grant');
  });
});
