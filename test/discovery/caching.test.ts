// Discovery documents are serialized once and revalidated cheaply: ETag, Cache-Control, 304.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';

describe('the discovery documents', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp();
  });
  afterAll(() => api.close());

  it.each([
    '/openapi.json',
    '/api/openapi.json',
    '/api/openapi.yaml',
    '/.well-known/oauth-authorization-server',
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/api/contact',
    '/.well-known/oauth-protected-resource/mcp',
  ])('serve %s with an ETag, and answer 304 when it still matches', async (path) => {
    const first = await fetch(`${api.url}${path}`);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    expect(first.headers.get('cache-control')).toBe('public, max-age=3600');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await fetch(`${api.url}${path}`, { headers: { 'if-none-match': `W/${etag}` } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
  });
});
