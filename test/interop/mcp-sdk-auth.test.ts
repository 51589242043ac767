// The official MCP SDK client's OAuth flow (discovery, DCR, PKCE, consent, exchange) against Portico.
import { auth } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, inquiry, startApp, type TestApp } from '../support/app.js';
import { memoryProvider } from '../support/sdk-oauth-provider.js';

describe('the MCP SDK client (@modelcontextprotocol/client) authorizing against Portico', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
  });
  afterAll(() => api.close());

  it('discovers, registers, gets consent, exchanges the code and uses the token', async () => {
    const sdk = memoryProvider({
      client_name: 'MCP SDK interop',
      redirect_uris: ['http://127.0.0.1:33418/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const { provider, saved } = sdk;
    const serverUrl = `${api.url}/api/contact`;

    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    const landedOn = sdk.landedOn();
    expect(landedOn.searchParams.get('iss')).toBe(api.url);
    const code = landedOn.searchParams.get('code')!;
    expect(await auth(provider, { serverUrl, authorizationCode: code, iss: landedOn.searchParams.get('iss')! })).toBe('AUTHORIZED');

    const tokens = saved.tokens!;
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.refresh_token).toBeTruthy();
    const sent = await api.post('/api/contact', inquiry({ email: 'sdk@example.com' }), { authorization: `Bearer ${tokens.access_token}` });
    expect(sent.status).toBe(200);
    const [stored] = await api.deps.inquiries.list({ limit: 1 });
    expect(stored).toMatchObject({ email: 'sdk@example.com', channel: 'api', clientId: saved.client!.client_id });
  });
});
