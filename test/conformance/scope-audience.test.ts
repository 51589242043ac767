// A token is usable where it is bound: one whose scopes give nothing at the requested resource is refused
// (invalid_scope, RFC 6749 section 5.2; RFC 8707 section 2), at the token endpoint, at authorize and on refresh.
// Without `resource` a token is for the API as a whole, where every scope it carries is honoured.
import { describe, expect, it } from 'vitest';
import { authorizationServerForSuite } from './support/authorization-server.js';
import { expectErrorRedirect, expectOAuthError } from './support/expectations.js';

describe('scope and audience agree', () => {
  const suite = authorizationServerForSuite();

  it('binds a token asked for with neither resource nor scope to the whole API, where each of its scopes works', async () => {
    const machine = await suite.http.registerMachineClient();
    const tokens = await (await suite.http.tokenAs(machine, { grant_type: 'client_credentials' })).json();
    expect(tokens).toMatchObject({ scope: 'contact:write mcp:invoke docs:read', resource: suite.api.url });
    const mcp = await fetch(`${suite.api.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(200);
    expect((await suite.http.contact(tokens.access_token)).status).toBe(200);
  });

  it('binds a token asked for with one scope and no resource to the whole API too', async () => {
    const machine = await suite.http.registerMachineClient();
    const tokens = await (await suite.http.tokenAs(machine, { grant_type: 'client_credentials', scope: 'mcp:invoke' })).json();
    expect(tokens).toMatchObject({ scope: 'mcp:invoke', resource: suite.api.url });
    const refused = await suite.http.contact(tokens.access_token);
    expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });

  it('refuses a token for /mcp with only contact:write, naming the scope it needs', async () => {
    const machine = await suite.http.registerMachineClient();
    const refused = await expectOAuthError(await suite.http.tokenAs(machine, { grant_type: 'client_credentials', scope: 'contact:write', resource: `${suite.api.url}/mcp` }), 400, 'invalid_scope');
    expect(refused.error_description).toContain('needs mcp:invoke');
    const granted = await (await suite.http.tokenAs(machine, { grant_type: 'client_credentials', scope: 'mcp:invoke', resource: `${suite.api.url}/mcp` })).json();
    expect(granted).toMatchObject({ scope: 'mcp:invoke', resource: `${suite.api.url}/mcp` });
  });

  it('refuses a client registered without the resource scope, even without a scope parameter', async () => {
    const contactOnly = await suite.http.registerMachineClient({ scope: 'contact:write' });
    await expectOAuthError(await suite.http.tokenAs(contactOnly, { grant_type: 'client_credentials', resource: `${suite.api.url}/mcp` }), 400, 'invalid_scope');
  });

  it('sends an authorization request for /mcp with only docs:read back with invalid_scope', async () => {
    const web = await suite.http.registerWebClient();
    const { url } = suite.http.authorizationUrl(web, { scope: 'docs:read', resource: `${suite.api.url}/mcp`, state: 's1' });
    expectErrorRedirect(await suite.http.openAuthorization(url), { to: web.redirect_uris[0]!, error: 'invalid_scope', state: 's1', iss: suite.api.url });
  });

  it('refuses a refresh narrowed to scopes that give nothing at the grant resource', async () => {
    const web = await suite.http.registerWebClient();
    const { refresh_token } = await suite.http.approvedTokens(web, { scope: 'contact:write docs:read', resource: `${suite.api.url}/api/contact` });
    await expectOAuthError(await suite.http.refresh(web, refresh_token, { scope: 'docs:read' }), 400, 'invalid_scope');
  });
});
