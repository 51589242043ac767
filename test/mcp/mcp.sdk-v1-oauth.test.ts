// Given an expired token, the 1.x SDK client's own OAuth flow discovers our server, registers, gets consent and retries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startApp, type TestApp } from '../support/app.js';
import { approveConsent } from '../support/consent.js';
import { loadSdkV1, type OAuthClientProvider } from '../support/sdk-v1.js';

// The 1.x SDK is no part of an install of Portico (tools/mcp-clients).
const sdk = await loadSdkV1();

describe.skipIf(!sdk)('the MCP SDK 1.x client with an expired token', () => {
  let api: TestApp;
  let now = Date.parse('2026-11-22T10:00:00Z');
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort(), clock: { now: () => now } });
  });

  /** A real access token for /mcp, then two hours pass: it has expired. */
  const expiredToken = async () => {
    const client = await (await api.post('/oauth/register', { grant_types: ['client_credentials'], scope: 'mcp:invoke' })).json();
    const response = await fetch(`${api.url}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${api.url}/mcp` }),
    });
    const { access_token } = await response.json();
    now += 2 * 3_600_000;
    return access_token as string;
  };
  afterAll(() => api.close());

  it('gets 401, runs discovery, registration and consent, and lists the tools with its new token', async () => {
    const { Client, StreamableHTTPClientTransport, UnauthorizedError } = sdk!;
    const expired = await expiredToken();
    const saved: Record<string, unknown> = { tokens: { access_token: expired, token_type: 'Bearer' } };
    let callback: URL | undefined;
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return 'http://127.0.0.1:45871/callback';
      },
      get clientMetadata() {
        return {
          client_name: 'SDK 1.x',
          redirect_uris: ['http://127.0.0.1:45871/callback'],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        };
      },
      clientInformation: () => saved.client as never,
      saveClientInformation: (info) => void (saved.client = info),
      tokens: () => saved.tokens as never,
      saveTokens: (tokens) => void (saved.tokens = tokens),
      redirectToAuthorization: async (url) => void (callback = await approveConsent(url)),
      saveCodeVerifier: (verifier) => void (saved.verifier = verifier),
      codeVerifier: () => saved.verifier as string,
    };
    const endpoint = new URL(`${api.url}/mcp`);

    const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
    await expect(new Client({ name: 'sdk1', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(callback?.searchParams.get('iss')).toBe(api.url);
    await first.finishAuth(callback!.searchParams.get('code')!);
    expect((saved.tokens as { access_token: string }).access_token).not.toBe(expired);

    const client = new Client({ name: 'sdk1', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['contact_service']);
    } finally {
      await client.close();
    }
  });
});
