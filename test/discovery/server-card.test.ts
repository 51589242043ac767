// The MCP Server Card at both addresses: the SEP-2127 shape, our endpoint, and revalidation by ETag.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { startApp, type TestApp } from '../support/app.js';

// The card's required shape, written from the experimental-ext-server-card schema (v2).
const ServerCard = z.object({
  $schema: z.literal('https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json'),
  name: z.string().min(3).max(200).regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/),
  version: z.string().max(255),
  description: z.string().min(1).max(100),
  title: z.string().min(1).max(100).optional(),
  websiteUrl: z.url().optional(),
  remotes: z.array(z.object({ type: z.enum(['streamable-http', 'sse']), url: z.string().regex(/^https?:\/\/\S+$/), supportedProtocolVersions: z.array(z.string()).optional() })).optional(),
}).strict();

describe('the MCP server card', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ PUBLIC_URL: 'https://api.portico.example' });
  });
  afterAll(() => api.close());

  it.each(['/.well-known/mcp/server-card.json', '/mcp/server-card'])('is served at %s, valid, naming our /mcp endpoint', async (path) => {
    const response = await fetch(`${api.url}${path}`);
    expect(response.status).toBe(200);
    const card = ServerCard.parse(await response.json());
    expect(card.name).toBe('example.portico.api/portico');
    expect(card.remotes).toEqual([{ type: 'streamable-http', url: 'https://api.portico.example/mcp', supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'] }]);
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers 304 to a revalidation with its ETag, and 200 to a stale one', async () => {
    const first = await fetch(`${api.url}/mcp/server-card`);
    await first.arrayBuffer();
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await fetch(`${api.url}/.well-known/mcp/server-card.json`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await fetch(`${api.url}/mcp/server-card`, { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
  });
});
