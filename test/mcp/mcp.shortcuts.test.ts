// The requests answered beside the SDK (tools/list from its captured result, a contact_service call
// without a per-request SDK server) get byte for byte what the SDK itself answers, in both eras.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactDeps } from '../../src/deps.js';
import { createPorticoMcpHandler } from '../../src/modules/mcp/mcp-handler.js';
import { lastSseMessage } from '../../src/modules/mcp/sse.js';
import { contactCall, toolsListEra } from '../../src/modules/mcp/shortcuts.js';
import { freePort, startApp, type TestApp } from '../support/app.js';

const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const CASES = [
  { era: 'legacy', id: 7, headers: { ...ACCEPT, 'mcp-protocol-version': '2025-11-25' }, body: { jsonrpc: '2.0', id: 7, method: 'tools/list' } },
  { era: 'legacy', id: 'x-1', headers: { ...ACCEPT, 'mcp-protocol-version': '2025-11-25' }, body: { jsonrpc: '2.0', id: 'x-1', method: 'tools/list', params: {} } },
  { era: 'modern', id: 42, headers: { ...ACCEPT, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }, body: { jsonrpc: '2.0', id: 42, method: 'tools/list', params: { _meta: META } } },
  {
    era: 'modern',
    id: 'abc',
    headers: { ...ACCEPT, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    body: { jsonrpc: '2.0', id: 'abc', method: 'tools/list', params: { _meta: { ...META, 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' } } } },
  },
] as const;

describe("tools/list's cache", () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
  });
  afterAll(() => api.close());

  it.each(CASES)('answers a $era request with id $id exactly as the SDK does', async ({ era, headers, body }) => {
    expect(toolsListEra(body, headers)).toBe(era);
    const ours = await (await api.post('/mcp', body, headers)).text();
    const sdk = await createPorticoMcpHandler(contactDeps(api.deps)).fetch(new Request(`${api.url}/mcp`, { method: 'POST', headers }), { parsedBody: body });
    const text = await sdk.text();
    // The route turns the SDK's one-event SSE framing into its JSON (D1); the message itself must be identical.
    expect(ours).toBe(text.startsWith('{') ? text : lastSseMessage(text));
  });

  it.each([
    ['a cursor', { ...CASES[0].headers }, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'x' } }],
    ['no protocol version header', { ...ACCEPT }, { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    ['an older protocol version', { ...ACCEPT, 'mcp-protocol-version': '2025-03-26' }, { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    ['a null id', { ...CASES[0].headers }, { jsonrpc: '2.0', id: null, method: 'tools/list' }],
    ['an Accept without SSE', { 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2025-11-25' }, { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    ['a mismatched Mcp-Method', { ...CASES[2].headers, 'mcp-method': 'tools/call' }, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }],
    ['modern headers without _meta', { ...CASES[2].headers }, { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    ['unknown _meta keys', { ...CASES[2].headers }, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { ...META, other: 1 } } }],
  ])('leaves a request with %s to the SDK', (_case, headers, body) => {
    expect(toolsListEra(body, headers)).toBeUndefined();
  });
});

const ARGS = { name: 'Ana García', email: 'ana@example.com', message: 'A demo for 40 buildings, please.', privacy: true };
const CALLS = [
  { era: 'legacy', headers: { ...ACCEPT, 'mcp-protocol-version': '2025-11-25' }, body: { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'contact_service', arguments: ARGS } } },
  {
    era: 'modern',
    headers: { ...ACCEPT, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'contact_service' },
    body: { jsonrpc: '2.0', id: 'call-1', method: 'tools/call', params: { name: 'contact_service', arguments: { ...ARGS, locale: 'en' }, _meta: META } },
  },
] as const;

describe('a contact_service call beside the SDK', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
  });
  afterAll(() => api.close());

  it.each(CALLS)('answers a valid $era contact_service call exactly as the SDK does, and stores the inquiry', async ({ headers, body }) => {
    expect(contactCall(body, headers)).toMatchObject({ id: body.id, arguments: body.params.arguments });
    const ours = await (await api.post('/mcp', body, headers)).text();
    const sdk = await createPorticoMcpHandler(contactDeps(api.deps)).fetch(
      new Request(`${api.url}/mcp`, { method: 'POST', headers }),
      { parsedBody: body },
      {
        remoteIp: '127.0.0.1',
        clientId: null,
        idempotencyKey: undefined,
      },
    );
    const text = await sdk.text();
    expect(ours).toBe(text.startsWith('{') ? text : lastSseMessage(text));
    expect(JSON.parse(ours).result.structuredContent).toEqual({ ok: true });
    const stored = await api.deps.inquiries.list({ limit: 10 });
    expect(stored.filter((inquiry) => inquiry.channel === 'mcp').length).toBeGreaterThanOrEqual(2);
  });

  it.each(CALLS)('refuses $era arguments the schema refuses with structuredContent.error, as POST /api/contact words it', async ({ headers, body }) => {
    const refused = { ...body, params: { ...body.params, arguments: { ...ARGS, email: 'not-an-email', privacy: false } } };
    const { result } = (await (await api.post('/mcp', refused, headers)).json()) as { result: { isError: boolean; structuredContent: unknown; content: { text: string }[] } };
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ ok: false, error: 'invalid_request', fields: ['email', 'privacy'] });
    const http = (await (await api.post('/api/contact', { ...ARGS, email: 'not-an-email', privacy: false })).json()) as { error_description: string };
    expect(result.content[0]!.text).toBe(`The inquiry was not sent: ${http.error_description}.`);
  });

  it.each([
    ['another tool', CALLS[0].headers, { ...CALLS[0].body, params: { name: 'other', arguments: ARGS } }],
    ['arguments the tool refuses', CALLS[0].headers, { ...CALLS[0].body, params: { name: 'contact_service', arguments: { ...ARGS, privacy: false } } }],
    ['a missing Mcp-Name', { ...CALLS[1].headers, 'mcp-name': undefined }, CALLS[1].body],
    ['an Mcp-Name for another tool', { ...CALLS[1].headers, 'mcp-name': 'other' }, CALLS[1].body],
    ['a task or progress _meta', CALLS[1].headers, { ...CALLS[1].body, params: { ...CALLS[1].body.params, _meta: { ...META, progressToken: 1 } } }],
    ['legacy params with _meta', CALLS[0].headers, { ...CALLS[0].body, params: { ...CALLS[0].body.params, _meta: { progressToken: 1 } } }],
    ['a null id', CALLS[0].headers, { ...CALLS[0].body, id: null }],
  ])('leaves a call with %s to the SDK', (_case, headers, body) => {
    expect(contactCall(body, headers)).toBeUndefined();
  });
});
