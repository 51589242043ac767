// C1 controls (U+0080-U+009F) are refused wherever a single line is expected: redirect URIs, state, names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inquiry, type TestApp } from '../support/app.js';
import { startAuthorizationServer } from './support/authorization-server.js';
import { expectErrorRedirect, expectOAuthError } from './support/expectations.js';
import { OAuthTestClient } from './support/oauth-client.js';

describe('C1 control characters', () => {
  let api: TestApp;
  let http: OAuthTestClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    http = new OAuthTestClient(api.url);
  });
  afterAll(() => api.close());

  it.each(['\u009b', '\u0085', '\u0080', ' '])('refuses a redirect URI holding U+%s', async (character) => {
    const refused = await expectOAuthError(await http.register({ redirect_uris: [`https://app.example/cb${character}x`] }), 400, 'invalid_redirect_uri');
    expect(refused.error_description).toBe('a redirect URI must not contain spaces or control characters (C0 or C1)');
  });

  it('refuses a state holding a C1 control', async () => {
    const web = await http.registerWebClient();
    const { url } = http.authorizationUrl(web, { state: 'abc\u009bdef' });
    const location = expectErrorRedirect(await http.openAuthorization(url), { to: web.redirect_uris[0]!, error: 'invalid_request', state: 'abc\u009bdef', iss: api.url });
    expect(location.searchParams.get('error_description')).toContain('control characters');
  });

  it.each([
    ['a client name', () => http.register({ client_name: 'Acme\u009b', redirect_uris: ['https://app.example/cb'] }), 'invalid_client_metadata'],
    ['an inquiry name', () => api.post('/api/contact', inquiry({ name: 'Ana\u0085García' })), 'invalid_request'],
  ])('refuses %s holding one', async (_case, send, error) => {
    await expectOAuthError(await send(), 400, error);
  });
});
