// The 2026-07-28 revision on the wire: _meta on every request, MCP-Protocol-Version, Mcp-Method and Mcp-Name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startApp, type TestApp } from '../support/app.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

describe('POST /mcp with 2026-07-28 requests', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
  });
  afterAll(() => api.close());
  const send = (method: string, params: Record<string, unknown>, headers: Record<string, string>) =>
    api.post('/mcp', { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } }, { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', ...headers });

  it('answers server/discover without any handshake, with our capabilities and server info', async () => {
    const response = await send('server/discover', {}, { 'mcp-method': 'server/discover' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const { result } = await response.json();
    expect(result.supportedVersions).toContain('2026-07-28');
    expect(result.capabilities).toHaveProperty('tools');
    expect(result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'portico' });
  });

  it('answers subscriptions/listen as every method it does not offer (-32601), since server/discover promises no list changes', async () => {
    const discovered = (await (await send('server/discover', {}, { 'mcp-method': 'server/discover' })).json()).result.capabilities;
    expect(discovered).toMatchObject({ tools: { listChanged: false }, resources: { listChanged: false } });
    expect(discovered.resources).not.toHaveProperty('subscribe');
    const listen = await send('subscriptions/listen', { filter: { toolsListChanged: true } }, { 'mcp-method': 'subscriptions/listen' });
    const prompts = await send('prompts/list', {}, { 'mcp-method': 'prompts/list' });
    expect(listen.headers.get('content-type')).toMatch(/^application\/json/);
    expect([listen.status, await listen.json()]).toEqual([prompts.status, await prompts.json()]);
    expect(prompts.status).toBe(404);
  });

  it('lists the tools when the headers mirror the body', async () => {
    const response = await send('tools/list', {}, { 'mcp-method': 'tools/list' });
    expect(response.status).toBe(200);
    expect((await response.json()).result.tools.map((t: { name: string }) => t.name)).toEqual(['contact_service']);
  });

  it('calls the tool with Mcp-Name naming it', async () => {
    const args = { name: 'Modern', email: 'modern@example.com', message: 'Hello from 2026.', privacy: true };
    const response = await send('tools/call', { name: 'contact_service', arguments: args }, { 'mcp-method': 'tools/call', 'mcp-name': 'contact_service' });
    expect(response.status).toBe(200);
    expect((await response.json()).result.structuredContent).toEqual({ ok: true });
  });

  it.each([
    ['Mcp-Method disagrees with the body', 'tools/list', {}, { 'mcp-method': 'tools/call' }],
    ['Mcp-Method is missing', 'tools/list', {}, {}],
    ['Mcp-Name is missing on tools/call', 'tools/call', { name: 'contact_service', arguments: {} }, { 'mcp-method': 'tools/call' }],
    ['Mcp-Name disagrees with the tool called', 'tools/call', { name: 'contact_service', arguments: {} }, { 'mcp-method': 'tools/call', 'mcp-name': 'other_tool' }],
  ])('answers 400 with JSON-RPC error -32020 when %s', async (_case, method, params, headers) => {
    const response = await send(method, params, headers);
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe(-32020);
  });

  it('answers an unsupported MCP-Protocol-Version 400 with a JSON-RPC error naming the supported ones', async () => {
    const response = await api.post('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '1999-01-01' });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toContain('2025-11-25');
  });

  it('answers a client that accepts neither JSON nor SSE 406', async () => {
    const response = await api.post(
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
      { accept: 'text/html' },
    );
    expect(response.status).toBe(406);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });
});
