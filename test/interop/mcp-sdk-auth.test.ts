// The official MCP SDK client's OAuth flow (discovery, DCR, PKCE, consent, exchange) against Portico.
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, inquiry, startApp, type TestApp } from '../support/app.js';
import { approveConsent } from '../support/consent.js';

describe('the MCP SDK client (@modelcontextprotocol/client) authorizing against Portico', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
  });
  afterAll(() => api.close());

  it('discovers, registers, gets consent, exchanges the code and uses the token', async () => {
    const saved: Record<string, unknown> = {};
    let landedOn: URL | undefined;
    const provider: OAuthClientProvider = {
      redirectUrl: 'http://127.0.0.1:33418/callback',
      clientMetadata: {
        client_name: 'MCP SDK interop',
        redirect_uris: ['http://127.0.0.1:33418/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      clientInformation: () => saved.client as never,
      saveClientInformation: (info) => void (saved.client = info),
      tokens: () => saved.tokens as never,
      saveTokens: (tokens) => void (saved.tokens = tokens),
      redirectToAuthorization: async (url) => void (landedOn = await approveConsent(url)),
      saveCodeVerifier: (verifier) => void (saved.verifier = verifier),
      codeVerifier: () => saved.verifier as string,
    };
    const serverUrl = `${api.url}/api/contact`;

    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    expect(landedOn?.searchParams.get('iss')).toBe(api.url);
    const code = landedOn!.searchParams.get('code')!;
    expect(await auth(provider, { serverUrl, authorizationCode: code, iss: landedOn!.searchParams.get('iss')! })).toBe('AUTHORIZED');

    const tokens = saved.tokens as { access_token: string; refresh_token?: string; token_type: string };
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.refresh_token).toBeTruthy();
    const sent = await api.post('/api/contact', inquiry({ email: 'sdk@example.com' }), { authorization: `Bearer ${tokens.access_token}` });
    expect(sent.status).toBe(200);
    const [stored] = await api.deps.inquiries.list({ limit: 1 });
    expect(stored).toMatchObject({ email: 'sdk@example.com', channel: 'api', clientId: (saved.client as { client_id: string }).client_id });
  });
});
