// D14: an inquiry is an inquiry whichever door it comes through. An anonymous contact_service call draws on
// its address's contact quota (8 an hour), shared with POST /api/contact, across nodes when Redis counts;
// a Bearer caller draws on its client's own quota (RATE_LIMITS contact-client). The HTTP 429 stays the MCP
// limit's: a spent quota is a tool error that says when to retry.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, inquiry, startApp, type TestApp } from '../support/app.js';
import { deleteKeys, MACHINE_REDIS, redisAvailable } from '../support/redis.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const ARGS = { name: 'Quota', email: 'quota@example.com', message: 'A demo, please.', privacy: true };
const HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'contact_service' };

/** One contact_service call from `address` (X-Forwarded-For, TRUST_PROXY=loopback); the HTTP status and the tool result. */
async function callTool(api: TestApp, address: string, headers: Record<string, string> = {}) {
  const response = await api.post(
    '/mcp',
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'contact_service', arguments: ARGS, _meta: META } },
    { ...HEADERS, 'x-forwarded-for': address, ...headers },
  );
  const body = await response.json();
  return { status: response.status, result: body.result as { isError?: boolean; structuredContent: Record<string, unknown>; content: { text: string }[] } };
}
const contact = (api: TestApp, address: string, headers: Record<string, string> = {}) => api.post('/api/contact', inquiry(), { 'x-forwarded-for': address, ...headers });

describe('the contact quota through contact_service, on one node', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'default', TRUST_PROXY: 'loopback' }, { port: await freePort() });
  });
  afterAll(() => api.close());

  it('sends 8 anonymous inquiries an hour from one address, then answers a tool error with the wait, and /api/contact 429', async () => {
    const results = [];
    for (let i = 0; i < 9; i++) results.push(await callTool(api, '198.51.100.1'));
    expect(results.map((r) => [r.status, r.result.isError ?? false])).toEqual([...Array(8).fill([200, false]), [200, true]]);
    const refused = results[8]!.result;
    expect(refused.structuredContent).toMatchObject({ ok: false, error: 'rate_limited', retryAfterSeconds: expect.any(Number) });
    expect(refused.structuredContent.retryAfterSeconds).toBeGreaterThan(3500);
    expect(refused.content[0]!.text).toMatch(/this address may send 8 inquiries every 60 minutes; retry in \d+ s\./);
    expect((await contact(api, '198.51.100.1')).status).toBe(429);
    expect((await api.deps.inquiries.list({ limit: 20 })).filter((i) => i.remoteIp === '198.51.100.1')).toHaveLength(8);
  });

  it('refuses the tool to an address whose /api/contact quota is spent', async () => {
    for (let i = 0; i < 8; i++) expect((await contact(api, '198.51.100.2')).status).toBe(200);
    expect((await contact(api, '198.51.100.2')).status).toBe(429);
    const { status, result } = await callTool(api, '198.51.100.2');
    expect(status).toBe(200);
    expect(result).toMatchObject({ isError: true, structuredContent: { error: 'rate_limited' } });
  });

  it('counts IPv6 callers by their /64, as the route does', async () => {
    for (let i = 0; i < 8; i++) expect((await callTool(api, `2001:db8:7:7::${i + 1}`)).result.isError).toBeUndefined();
    expect((await contact(api, '2001:db8:7:7:ffff::9')).status).toBe(429);
  });
});

describe('the per-client quota of Bearer callers (RATE_LIMITS contact-client)', () => {
  let api: TestApp;
  const tokenFor = async () => {
    const registered = await (await api.post('/oauth/register', { client_name: 'Agent', grant_types: ['client_credentials'], scope: 'mcp:invoke' })).json();
    const response = await fetch(`${api.url}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${api.url}/mcp` }),
    });
    return { authorization: `Bearer ${(await response.json()).access_token}` };
  };
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'contact-client=2/h,register=off,token=off', TRUST_PROXY: 'loopback' }, { port: await freePort() });
  });
  afterAll(() => api.close());

  it('lets a client send its quota whatever its address, leaves other clients and the address quota alone', async () => {
    const [first, second] = [await tokenFor(), await tokenFor()];
    const calls = [];
    for (const address of ['198.51.100.10', '198.51.100.11', '198.51.100.12']) calls.push(await callTool(api, address, first));
    expect(calls.map((c) => c.result.isError ?? false)).toEqual([false, false, true]);
    expect(calls[2]!.result.content[0]!.text).toMatch(/this client may send 2 inquiries every 60 minutes/);
    expect((await callTool(api, '198.51.100.10', second)).result.isError).toBeUndefined();
    // The address's own contact quota was never drawn on by the Bearer calls.
    expect((await contact(api, '198.51.100.10')).headers.get('ratelimit-remaining')).toBe('7');
  });
});

const redis = await redisAvailable('test/mcp/mcp.contact-quota.test.ts across nodes');

describe.skipIf(!redis)('the contact quota through contact_service, across two nodes sharing Redis', () => {
  const prefix = `portico:test:${randomBytes(4).toString('hex')}:`;
  let nodes: TestApp[];
  beforeAll(async () => {
    const start = async () => startApp({ RATE_LIMITS: 'default', TRUST_PROXY: 'loopback', REDIS_URL: MACHINE_REDIS, REDIS_KEY_PREFIX: prefix }, { port: await freePort() });
    nodes = [await start(), await start()];
  });
  afterAll(async () => {
    for (const node of nodes) await node.close();
    await deleteKeys(prefix);
  });

  it('is one quota: 4 calls on one node and 4 on the other spend it, for the tool and for /api/contact', async () => {
    const [a, b] = nodes as [TestApp, TestApp];
    for (let i = 0; i < 4; i++) expect((await callTool(a, '198.51.100.20')).result.isError).toBeUndefined();
    for (let i = 0; i < 4; i++) expect((await callTool(b, '198.51.100.20')).result.isError).toBeUndefined();
    expect((await callTool(a, '198.51.100.20')).result.structuredContent).toMatchObject({ error: 'rate_limited' });
    expect((await contact(b, '198.51.100.20')).status).toBe(429);
  });
});
