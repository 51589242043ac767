// The MCP Server Card at both addresses, valid against the extension's own schema, and the AI Catalog that lists it.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';

const schema = JSON.parse(readFileSync(new URL('./vendor/server-card.schema.json', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: false });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
ajv.addSchema(schema, 'server-card.schema.json');
const validateCard = ajv.getSchema('server-card.schema.json#/$defs/ServerCard')!;

describe('the MCP server card', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ PUBLIC_URL: 'https://api.portico.example' });
  });
  afterAll(() => api.close());

  it.each([
    ['/mcp/server-card', 'application/mcp-server-card+json; charset=utf-8'],
    ['/.well-known/mcp/server-card.json', 'application/json; charset=utf-8'],
  ])('is served at %s as %s, valid against the v1 schema, naming our /mcp endpoint', async (path, contentType) => {
    const response = await fetch(`${api.url}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    const card = await response.json();
    expect(validateCard(card), JSON.stringify(validateCard.errors)).toBe(true);
    expect(card.$schema).toBe('https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json');
    expect(card.name).toBe('example.portico.api/portico');
    expect(card.remotes).toEqual([{ type: 'streamable-http', url: 'https://api.portico.example/mcp', supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'] }]);
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('is refused by the schema with the retired v2 $schema URL (the validator can fail)', async () => {
    const card = await (await fetch(`${api.url}/mcp/server-card`)).json();
    expect(validateCard({ ...card, $schema: 'https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json' })).toBe(false);
  });

  it('is listed by the AI Catalog at /.well-known/ai-catalog.json, by the recommended URL', async () => {
    const response = await fetch(`${api.url}/.well-known/ai-catalog.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/ai-catalog+json; charset=utf-8');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual({
      specVersion: '1.0',
      entries: [{ identifier: 'urn:air:api.portico.example:mcp:portico', type: 'application/mcp-server-card+json', url: 'https://api.portico.example/mcp/server-card' }],
    });
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
