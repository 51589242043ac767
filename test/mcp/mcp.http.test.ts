// POST /mcp on the wire: JSON answers, 204 notifications, 405, batches, DNS-rebinding defence, Bearer (D1, D3).
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken, tokenKey } from '../../src/modules/oauth/secrets.js';
import { cryptoRandom } from '../../src/ports/random.js';
import { freePort, startApp, type TestApp } from '../support/app.js';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const ACCEPT = { accept: 'application/json, text/event-stream' };

describe('POST /mcp over raw HTTP', () => {
  let api: TestApp;
  const mcp = (body: unknown, headers: Record<string, string> = {}) => api.post('/mcp', body, { ...ACCEPT, ...headers });
  const token = async (scope: string, resource: string) => {
    const registered = await (await api.post('/oauth/register', { grant_types: ['client_credentials'], scope })).json();
    const response = await fetch(`${api.url}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
    });
    return { clientId: registered.client_id as string, accessToken: (await response.json()).access_token as string };
  };
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'mcp=40/m', MCP_ALLOWED_ORIGINS: 'https://agent.example' }, { port: await freePort() });
  });
  afterAll(() => api.close());

  it('answers initialize 200 with application/json, even to a 2025-era client', async () => {
    const response = await mcp(INIT);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', serverInfo: { name: 'portico' } } });
  });

  it('answers a notification 204 with no body', async () => {
    const response = await mcp({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-protocol-version': '2025-11-25' });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
  });

  it.each(['GET', 'DELETE'])('answers %s 405 with Allow naming POST', async (method) => {
    const response = await fetch(`${api.url}/mcp`, { method });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('POST');
  });

  it('answers a batch 400 with JSON-RPC error -32600', async () => {
    const response = await mcp([INIT]);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'JSON-RPC batches are not supported' } });
  });

  // JSON-RPC 2.0 section 5.1: params of the wrong shape are -32602, naming the field; never -32603 Internal error.
  it('answers an initialize without its params -32602 Invalid params naming the missing fields', async () => {
    const response = await mcp({ jsonrpc: '2.0', id: 7, method: 'initialize', params: {} }, { 'mcp-protocol-version': '2025-11-25' });
    const body = await response.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
    expect(body.error.message).toMatch(/^Invalid params: params\.protocolVersion: /);
  });

  // fetch() will not send a foreign Host, so this one goes through node:http as a rebinding page's would arrive.
  it.each([
    ['broken JSON', '{"jsonrpc": "2.0",'],
    ['an empty body', ''],
  ])('answers %s 400 with JSON-RPC error -32700 and id null', async (_case, raw) => {
    const response = await mcp(raw);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('refuses a Host that is not this server with 403 (DNS rebinding)', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${api.url}/mcp`, { method: 'POST', headers: { ...ACCEPT, 'content-type': 'application/json', host: 'rebound.evil.example' } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject).end(JSON.stringify(INIT));
    });
    expect(status).toBe(403);
    expect(JSON.parse(body)).toMatchObject({ error: 'forbidden', ok: false });
  });

  it("answers on every loopback name of a loopback PUBLIC_URL, so a newcomer's curl works", async () => {
    const local = await fetch(`${api.url.replace('127.0.0.1', 'localhost')}/mcp`, { method: 'POST', headers: { ...ACCEPT, 'content-type': 'application/json' }, body: JSON.stringify(INIT) });
    expect(local.status).toBe(200);
  });

  it('refuses an Origin that is not allowed with 403, and serves an allowed one with CORS headers', async () => {
    expect((await mcp(INIT, { origin: 'https://evil.example' })).status).toBe(403);
    const allowed = await mcp(INIT, { origin: 'https://agent.example' });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://agent.example');
  });

  it('answers a CORS preflight from an allowed origin with the MCP headers it may send (D10)', async () => {
    const response = await fetch(`${api.url}/mcp`, { method: 'OPTIONS', headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST' } });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://agent.example');
    const allowed = response.headers.get('access-control-allow-headers')!.split(', ');
    for (const name of ['Authorization', 'Content-Type', 'Accept', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID']) expect(allowed).toContain(name);
    const actual = await mcp(INIT, { origin: 'https://agent.example' });
    expect(actual.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
  });

  it('answers an unknown Bearer token 401 naming the /mcp resource metadata', async () => {
    const response = await mcp(INIT, { authorization: 'Bearer not-a-token' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(`resource_metadata="${api.url}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('answers a valid token without mcp:invoke 403 insufficient_scope (D3)', async () => {
    // The token endpoint no longer issues such a token (it would be useless there); one issued before it
    // refused them is still answered as D3 says. Stored here as that version stored it.
    const accessToken = newToken(cryptoRandom, Date.now());
    const row = {
      kind: 'access' as const,
      grantId: 'pre-rule',
      clientId: 'pre-rule',
      scope: 'docs:read',
      resource: `${api.url}/mcp`,
      expiresAt: Date.now() + 60_000,
      state: 'active' as const,
      previousHash: null,
      usedAt: null,
    };
    const client = {
      clientId: 'pre-rule',
      secretHash: 'ab'.repeat(32),
      clientName: 'Old CRM',
      redirectUris: [],
      grantTypes: ['client_credentials'],
      tokenEndpointAuthMethod: 'client_secret_basic' as const,
      scope: 'docs:read',
      applicationType: null,
      createdAt: 0,
      lastUsedAt: null,
    };
    await api.deps.oauth.createClient(client);
    expect(await api.deps.oauth.saveTokens([{ ...row, tokenHash: tokenKey(accessToken) }])).toBe(true);
    const response = await mcp(INIT, { authorization: `Bearer ${accessToken}` });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: 'insufficient_scope' });
    expect(response.headers.get('www-authenticate')).toContain('scope="mcp:invoke"');
  });

  it('accepts a token with mcp:invoke for /mcp, and records its client on the inquiry', async () => {
    const { accessToken, clientId } = await token('mcp:invoke', `${api.url}/mcp`);
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'contact_service', arguments: { name: 'Bot', email: 'bot@example.com', message: 'hi', privacy: true } } };
    const response = await mcp(call, { authorization: `Bearer ${accessToken}`, 'mcp-protocol-version': '2025-11-25' });
    expect(response.status).toBe(200);
    expect((await response.json()).result.structuredContent).toEqual({ ok: true });
    const [stored] = await api.deps.inquiries.list({ limit: 1 });
    expect(stored).toMatchObject({ channel: 'mcp', clientId });
  });

  it('records the client and the address of a call the SDK answers itself', async () => {
    const { accessToken, clientId } = await token('mcp:invoke', `${api.url}/mcp`);
    // A progress token sends the call through the SDK's own server, not beside it (src/modules/mcp/shortcuts.ts).
    const call = {
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'contact_service', arguments: { name: 'Slow Bot', email: 'slow@example.com', message: 'hi', privacy: true }, _meta: { progressToken: 1 } },
    };
    const response = await mcp(call, { authorization: `Bearer ${accessToken}`, 'mcp-protocol-version': '2025-11-25', 'idempotency-key': 'sdk-path-1' });
    expect(response.status).toBe(200);
    expect((await response.json()).result.structuredContent).toEqual({ ok: true });
    const [stored] = await api.deps.inquiries.list({ limit: 1 });
    expect(stored).toMatchObject({ channel: 'mcp', name: 'Slow Bot', clientId, remoteIp: '127.0.0.1', idempotencyKey: `${clientId} sdk-path-1` });
  });

  it('refuses a token issued for /api/contact', async () => {
    const { accessToken } = await token('contact:write mcp:invoke', `${api.url}/api/contact`);
    expect((await mcp(INIT, { authorization: `Bearer ${accessToken}` })).status).toBe(401);
  });

  it('publishes RFC 9728 metadata for the /mcp resource', async () => {
    const metadata = await (await fetch(`${api.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource: `${api.url}/mcp`, scopes_supported: ['mcp:invoke'], authorization_servers: [api.url] });
  });

  it('limits each IP per minute, with the policy announced', async () => {
    const first = await mcp(INIT);
    expect(first.headers.get('ratelimit-policy')).toBe('40;w=60');
    let status = first.status;
    for (let i = 0; i < 45 && status !== 429; i++) status = (await mcp(INIT)).status;
    expect(status).toBe(429);
  });
});
