// C1 controls (U+0080-U+009F) are refused wherever a single line is expected: redirect URIs, state, names.
import { describe, expect, it } from 'vitest';
import { inquiry } from '../support/app.js';
import { authorizationServerForSuite } from './support/authorization-server.js';
import { expectErrorRedirect, expectOAuthError } from './support/expectations.js';

describe('C1 control characters', () => {
  const suite = authorizationServerForSuite();

  it.each(['\u009b', '\u0085', '\u0080', ' '])('refuses a redirect URI holding U+%s', async (character) => {
    const refused = await expectOAuthError(await suite.http.register({ redirect_uris: [`https://app.example/cb${character}x`] }), 400, 'invalid_redirect_uri');
    expect(refused.error_description).toBe('a redirect URI must not contain spaces or control characters (C0 or C1)');
  });

  it('refuses a state holding a C1 control', async () => {
    const web = await suite.http.registerWebClient();
    const { url } = suite.http.authorizationUrl(web, { state: 'abc\u009bdef' });
    const location = expectErrorRedirect(await suite.http.openAuthorization(url), { to: web.redirect_uris[0]!, error: 'invalid_request', state: 'abc\u009bdef', iss: suite.api.url });
    expect(location.searchParams.get('error_description')).toContain('control characters');
  });

  it.each([
    ['a client name', () => suite.http.register({ client_name: 'Acme\u009b', redirect_uris: ['https://app.example/cb'] }), 'invalid_client_metadata'],
    ['an inquiry name', () => suite.api.post('/api/contact', inquiry({ name: 'Ana\u0085García' })), 'invalid_request'],
  ])('refuses %s holding one', async (_case, send, error) => {
    await expectOAuthError(await send(), 400, error);
  });
});
