// What a 2026-07-28 client sees (the MCP SDK 2.x client pinned to that revision, which it confirms by server/discover):
// resultType on every result, public caching hints on the cacheable ones, -32602 for an unknown resource,
// and a tool that states its title and all four annotations. The wire is read as the client received it.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startApp, type TestApp } from '../support/app.js';

interface Exchange {
  method: string;
  protocolVersion: string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

describe('POST /mcp as a 2026-07-28 client sees it', () => {
  let api: TestApp;
  let client: Client;
  const wire: Exchange[] = [];
  // Records each JSON-RPC answer the client receives, as it came over HTTP.
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const sent = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    if (sent?.id !== undefined && response.headers.get('content-type')?.startsWith('application/json')) {
      const body = (await response.clone().json()) as Pick<Exchange, 'result' | 'error'>;
      wire.push({ method: sent.method, protocolVersion: new Headers(init?.headers).get('mcp-protocol-version'), result: body.result, error: body.error });
    }
    return response;
  };
  const answered = (method: string) => wire.filter((e) => e.method === method).at(-1)!;

  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
    client = new Client({ name: 'modern-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { fetch: recordingFetch }));
    await client.listTools();
    await client.listResources();
    await client.listResourceTemplates();
    await client.readResource({ uri: 'ui://portico/contact-form' });
  });
  afterAll(async () => {
    await client.close();
    await api.close();
  });

  it('negotiates 2026-07-28 through server/discover, which names the server in _meta', () => {
    const discover = answered('server/discover');
    expect(discover.result).toMatchObject({ supportedVersions: ['2026-07-28'], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'portico', version: '1.0.0' } } });
    expect(answered('tools/list').protocolVersion).toBe('2026-07-28');
  });

  it('carries resultType on every result', () => {
    expect(wire.filter((e) => e.result).map((e) => [e.method, e.result!.resultType])).toEqual(wire.filter((e) => e.result).map((e) => [e.method, 'complete']));
    expect(wire.length).toBeGreaterThanOrEqual(5);
  });

  it.each(['server/discover', 'tools/list', 'resources/list', 'resources/templates/list', 'resources/read'])('lets anyone cache %s for an hour (ttlMs, cacheScope public)', (method) => {
    expect(answered(method).result).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'public' });
  });

  it('answers -32602 for an unknown resource (resources/read), naming it', async () => {
    await expect(client.readResource({ uri: 'ui://portico/missing' })).rejects.toMatchObject({ code: -32602 });
    expect(answered('resources/read').error).toMatchObject({ code: -32602, message: expect.stringContaining('ui://portico/missing') });
  });

  it('states the tool title and all four annotations, none left to its default', async () => {
    const [tool] = (await client.listTools()).tools;
    expect(tool).toMatchObject({ name: 'contact_service', title: 'Contact the team' });
    // It sends mail on each call (not read-only, not idempotent), adds without destroying, and reaches people outside.
    expect(tool!.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    const raw = (answered('tools/list').result!.tools as Record<string, unknown>[])[0]!;
    expect(raw.annotations).toEqual(tool!.annotations);
  });

  it('offers topic in the 2026-07-28 era as in the one before: sales, demo or support, optional', async () => {
    const [tool] = (await client.listTools()).tools;
    expect(answered('tools/list').protocolVersion).toBe('2026-07-28');
    const schema = tool!.inputSchema as { properties: Record<string, { enum?: string[] }>; required: string[] };
    expect(schema.properties.topic?.enum).toEqual(['sales', 'demo', 'support']);
    expect(schema.required).not.toContain('topic');
  });
});
