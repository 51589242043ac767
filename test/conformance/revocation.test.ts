// Token revocation (RFC 7009): a strict client revokes; unknown and foreign tokens; refresh revocation ends the grant.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { discover, insecure, startAuthorizationServer } from './support/authorization-server.js';
import { expectOAuthError } from './support/expectations.js';
import { basic, formBody, OAuthTestClient, type RegisteredClient } from './support/oauth-client.js';

describe('token revocation (RFC 7009)', () => {
  let api: TestApp;
  let as: oauth.AuthorizationServer;
  let http: OAuthTestClient;
  let web: RegisteredClient;
  let machine: RegisteredClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    as = await discover(api);
    http = new OAuthTestClient(api.url);
    web = await http.registerWebClient();
    machine = await http.registerMachineClient();
  });
  afterAll(() => api.close());

  const machineToken = async () => (await (await http.tokenAs(machine, { grant_type: 'client_credentials' })).json()).access_token as string;

  // RFC 7009 section 2.1-2.2, through oauth4webapi: 200, and the access token stops working at once.
  it('revokes an access token for a strict client (client_secret_basic)', async () => {
    const accessToken = await machineToken();
    expect((await http.contact(accessToken)).status).toBe(200);
    const response = await oauth.revocationRequest(as, { client_id: machine.client_id }, oauth.ClientSecretBasic(machine.client_secret!), accessToken, insecure);
    await oauth.processRevocationResponse(response);
    expect((await http.contact(accessToken)).status).toBe(401);
  });

  // RFC 7009 section 2.1: a public client identifies itself with client_id alone.
  it('revokes a refresh token of a public client through oauth4webapi', async () => {
    const native = await http.registerClient({ redirect_uris: ['http://127.0.0.1/callback'], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' });
    const { refresh_token } = await http.approvedTokens(native);
    const client: oauth.Client = { client_id: native.client_id, token_endpoint_auth_method: 'none' };
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), refresh_token, { ...insecure, additionalParameters: { token_type_hint: 'refresh_token' } }));
    await expectOAuthError(await http.refresh(native, refresh_token), 400, 'invalid_grant');
  });

  // RFC 7009 section 2.2: "invalid tokens do not cause an error response"; D9: never cached.
  it('answers 200 to a token it never issued, with Cache-Control: no-store', async () => {
    const response = await http.revoke(machine, 'C'.repeat(43));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  // RFC 7009 section 2.1: the server checks the token was issued to the requesting client; another client's is left alone.
  it("answers 200 to another client's token and leaves it working", async () => {
    const accessToken = await machineToken();
    const stranger = await http.registerMachineClient();
    expect((await http.revoke(stranger, accessToken)).status).toBe(200);
    expect((await http.contact(accessToken)).status).toBe(200);
  });

  // RFC 7009 section 2.1: revoking a refresh token should also invalidate the access tokens of the same grant.
  it("revokes the grant's access tokens along with its refresh token", async () => {
    const { access_token, refresh_token } = await http.approvedTokens(web);
    const refreshed = await (await http.refresh(web, refresh_token)).json();
    expect((await http.revoke(web, refreshed.refresh_token)).status).toBe(200);
    expect((await http.contact(access_token)).status).toBe(401);
    expect((await http.contact(refreshed.access_token)).status).toBe(401);
    await expectOAuthError(await http.refresh(web, refreshed.refresh_token), 400, 'invalid_grant');
  });

  // RFC 7009 section 2.1: revoking an access token need not end the grant; the refresh token still works.
  it('revokes only the access token when given one', async () => {
    const { access_token, refresh_token } = await http.approvedTokens(web);
    expect((await http.revoke(web, access_token)).status).toBe(200);
    expect((await http.contact(access_token)).status).toBe(401);
    expect((await http.refresh(web, refresh_token)).status).toBe(200);
  });

  // RFC 7009 section 2.1: token_type_hint is only a hint; a wrong one must not stop the search.
  it.each([
    ['an access token hinted as refresh_token', 'access', 'refresh_token'],
    ['a refresh token hinted as access_token', 'refresh', 'access_token'],
    ['an access token with an unknown hint', 'access', 'id_token'],
  ])('revokes %s', async (_case, kind, hint) => {
    const tokens = await http.approvedTokens(web);
    const token = kind === 'access' ? tokens.access_token : tokens.refresh_token;
    expect((await http.revoke(web, token, { token_type_hint: hint })).status).toBe(200);
    // Either way the access token dies: directly, or with the grant its refresh token ended.
    expect((await http.contact(tokens.access_token)).status).toBe(401);
    if (kind === 'refresh') await expectOAuthError(await http.refresh(web, tokens.refresh_token), 400, 'invalid_grant');
  });

  // RFC 7009 section 2.1: the client authenticates as at the token endpoint; RFC 6749 section 5.2 error.
  it('answers 401 invalid_client to a wrong secret, and revokes nothing', async () => {
    const accessToken = await machineToken();
    const response = await fetch(`${api.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(machine.client_id, 'wrong') },
      body: formBody({ token: accessToken }),
    });
    await expectOAuthError(response, 401, 'invalid_client');
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await http.contact(accessToken)).status).toBe(200);
  });

  // RFC 7009 section 2.2.1: a request without the token parameter is invalid_request.
  it('answers invalid_request when token is missing', async () => {
    const response = await fetch(`${api.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(machine.client_id, machine.client_secret!) },
      body: formBody({ token_type_hint: 'access_token' }),
    });
    await expectOAuthError(response, 400, 'invalid_request');
  });
});
