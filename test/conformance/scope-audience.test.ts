// A token is usable where it is bound: one whose scopes give nothing at the requested resource is refused
// (invalid_scope, RFC 6749 section 5.2; RFC 8707 section 2), at the token endpoint, at authorize and on refresh.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { startAuthorizationServer } from './support/authorization-server.js';
import { expectErrorRedirect, expectOAuthError } from './support/expectations.js';
import { OAuthTestClient } from './support/oauth-client.js';

describe('scope and audience agree', () => {
  let api: TestApp;
  let http: OAuthTestClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    http = new OAuthTestClient(api.url);
  });
  afterAll(() => api.close());

  it('refuses a token for /mcp with only contact:write, naming the scope it needs', async () => {
    const machine = await http.registerMachineClient();
    const refused = await expectOAuthError(await http.tokenAs(machine, { grant_type: 'client_credentials', scope: 'contact:write', resource: `${api.url}/mcp` }), 400, 'invalid_scope');
    expect(refused.error_description).toContain('needs mcp:invoke');
    const granted = await (await http.tokenAs(machine, { grant_type: 'client_credentials', scope: 'mcp:invoke', resource: `${api.url}/mcp` })).json();
    expect(granted).toMatchObject({ scope: 'mcp:invoke', resource: `${api.url}/mcp` });
  });

  it('refuses a client registered without the resource scope, even without a scope parameter', async () => {
    const contactOnly = await http.registerMachineClient({ scope: 'contact:write' });
    await expectOAuthError(await http.tokenAs(contactOnly, { grant_type: 'client_credentials', resource: `${api.url}/mcp` }), 400, 'invalid_scope');
  });

  it('sends an authorization request for /mcp with only docs:read back with invalid_scope', async () => {
    const web = await http.registerWebClient();
    const { url } = http.authorizationUrl(web, { scope: 'docs:read', resource: `${api.url}/mcp`, state: 's1' });
    expectErrorRedirect(await http.openAuthorization(url), { to: web.redirect_uris[0]!, error: 'invalid_scope', state: 's1', iss: api.url });
  });

  it('refuses a refresh narrowed to scopes that give nothing at the grant resource', async () => {
    const web = await http.registerWebClient();
    const { refresh_token } = await http.approvedTokens(web, { scope: 'contact:write docs:read', resource: `${api.url}/api/contact` });
    await expectOAuthError(await http.refresh(web, refresh_token, { scope: 'docs:read' }), 400, 'invalid_scope');
  });
});
