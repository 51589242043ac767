// The MCP SDK client's scope selection (MCP 2026-07-28, "Scope selection"): a 401 names the scope its route
// needs, and the client asks for that scope, found where the challenge says (RFC 6750 section 3, RFC 9728).
import { auth, Client, extractWWWAuthenticateParams, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, inquiry, startApp, type TestApp } from '../support/app.js';
import { memoryProvider } from '../support/sdk-oauth-provider.js';

const CLIENT = {
  client_name: 'MCP SDK scope selection',
  redirect_uris: ['http://127.0.0.1:33419/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};

describe('the MCP SDK client choosing its scope from a 401', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
  });
  afterAll(() => api.close());

  it('asks for mcp:invoke alone when /mcp refuses a stale token, and connects with the token it gets', async () => {
    const sdk = memoryProvider(CLIENT);
    sdk.saved.tokens = { access_token: 'a-token-this-server-never-issued', token_type: 'Bearer' };
    const connect = () => new Client({ name: 'scope-test', version: '1.0.0' }).connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { authProvider: sdk.provider }));

    const refused = await api.post(
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { authorization: 'Bearer a-token-this-server-never-issued', accept: 'application/json, text/event-stream' },
    );
    expect(extractWWWAuthenticateParams(refused).scope).toBe('mcp:invoke');
    await expect(connect()).rejects.toBeInstanceOf(UnauthorizedError);
    const asked = sdk.authorizationUrl();
    expect(asked.searchParams.get('scope')).toBe('mcp:invoke');
    expect(asked.searchParams.get('resource')).toBe(`${api.url}/mcp`);

    const landed = sdk.landedOn();
    expect(await auth(sdk.provider, { serverUrl: `${api.url}/mcp`, authorizationCode: landed.searchParams.get('code')!, iss: landed.searchParams.get('iss')! })).toBe('AUTHORIZED');
    expect(sdk.saved.tokens?.scope).toBe('mcp:invoke');
    const client = new Client({ name: 'scope-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { authProvider: sdk.provider }));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['contact_service']);
    await client.close();
  });

  it('reads contact:write and the resource metadata from the 401 of /api/contact, and the token it gets sends an inquiry', async () => {
    const refused = await api.post('/api/contact', inquiry(), { authorization: 'Bearer a-token-this-server-never-issued' });
    expect(refused.status).toBe(401);
    const { scope, resourceMetadataUrl } = extractWWWAuthenticateParams(refused);
    expect(scope).toBe('contact:write');
    expect(resourceMetadataUrl?.href).toMatch(new RegExp(`^${api.url}/\\.well-known/oauth-protected-resource`));

    const sdk = memoryProvider(CLIENT);
    const serverUrl = `${api.url}/api/contact`;
    expect(await auth(sdk.provider, { serverUrl, scope, resourceMetadataUrl })).toBe('REDIRECT');
    expect(sdk.authorizationUrl().searchParams.get('scope')).toBe('contact:write');
    const landed = sdk.landedOn();
    expect(await auth(sdk.provider, { serverUrl, authorizationCode: landed.searchParams.get('code')!, iss: landed.searchParams.get('iss')! })).toBe('AUTHORIZED');
    expect(sdk.saved.tokens?.scope).toBe('contact:write');
    const sent = await api.post('/api/contact', inquiry({ email: 'scoped@example.com' }), { authorization: `Bearer ${sdk.saved.tokens!.access_token}` });
    expect(sent.status).toBe(200);
  });
});
