// What hosted clients send when they register and authorize: OpenID words and offline_access next to or
// instead of our scopes (mcp-remote asks for "openid email profile" when nothing says otherwise). RFC 6749
// section 3.3 lets the server grant less than asked: those words are ignored, never refused.
import { describe, expect, it } from 'vitest';
import { authorizationServerForSuite } from './support/authorization-server.js';
import { expectOAuthError } from './support/expectations.js';

const ALL = 'contact:write mcp:invoke docs:read';

describe('scope words of other servers', () => {
  const suite = authorizationServerForSuite();

  const publicClient = (scope?: string) =>
    suite.http.registerClient({
      client_name: 'mcp-remote',
      redirect_uris: ['http://127.0.0.1/oauth/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      ...(scope === undefined ? {} : { scope }),
    });

  it('registers with only OpenID words as with no scope (all three), and says when it was issued', async () => {
    const before = Math.floor(Date.now() / 1000);
    const registered = await publicClient('openid email profile');
    expect(registered.scope).toBe(ALL);
    expect(registered.client_id_issued_at).toBeGreaterThanOrEqual(before);
  });

  it('narrows a registration to our scopes among them', async () => {
    expect((await publicClient('mcp:invoke offline_access openid')).scope).toBe('mcp:invoke');
  });

  it('still refuses a scope nobody defines', async () => {
    await expectOAuthError(await suite.http.register({ redirect_uris: ['https://app.example/cb'], scope: 'mcp:invoke admin' }), 400, 'invalid_client_metadata');
  });

  it('authorizes "openid email profile" as a request without scope, and the token says what was granted', async () => {
    const client = await publicClient('openid email profile');
    const tokens = await suite.http.approvedTokens(client, { scope: 'openid email profile' });
    expect(tokens.scope).toBe(ALL);
    expect(tokens.refresh_token).toEqual(expect.any(String));
  });

  it('grants mcp:invoke for "mcp:invoke offline_access", refresh token included (from the grant types)', async () => {
    const client = await publicClient();
    const tokens = await suite.http.approvedTokens(client, { scope: 'mcp:invoke offline_access', resource: `${suite.api.url}/mcp` });
    expect(tokens).toMatchObject({ scope: 'mcp:invoke', resource: `${suite.api.url}/mcp`, refresh_token: expect.any(String) });
    const refreshed = await (await suite.http.refresh(client, tokens.refresh_token, { scope: 'mcp:invoke offline_access' })).json();
    expect(refreshed.scope).toBe('mcp:invoke');
  });

  it('still refuses at the token endpoint a scope of ours beyond the registration', async () => {
    const machine = await suite.http.registerMachineClient({ scope: 'contact:write' });
    await expectOAuthError(await suite.http.tokenAs(machine, { grant_type: 'client_credentials', scope: 'openid mcp:invoke' }), 400, 'invalid_scope');
    const granted = await (await suite.http.tokenAs(machine, { grant_type: 'client_credentials', scope: 'openid profile' })).json();
    expect(granted.scope).toBe('contact:write');
  });
});
