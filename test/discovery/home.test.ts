// GET / points the way: JSON for programs, a small page for people; /docs/ leads to /docs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';

describe('the root', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ PUBLIC_URL: 'https://api.portico.example', TRUST_PROXY: 'loopback' });
  });
  afterAll(() => api.close());

  it('answers a program with the links as JSON', async () => {
    const response = await fetch(`${api.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('vary')).toBe('Accept');
    expect(await response.json()).toMatchObject({
      name: 'Portico',
      links: {
        docs: 'https://api.portico.example/docs',
        openapi: 'https://api.portico.example/openapi.json',
        mcp: 'https://api.portico.example/mcp',
        authorizationServer: 'https://api.portico.example/.well-known/oauth-authorization-server',
        protectedResource: 'https://api.portico.example/.well-known/oauth-protected-resource',
      },
    });
  });

  it('answers a browser with a page of the same links', async () => {
    const response = await fetch(`${api.url}/`, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('<a href="https://api.portico.example/docs">The API reference</a>');
    expect(html).toContain('<a href="https://api.portico.example/mcp">');
  });

  it('sends /docs/ on to /docs', async () => {
    const response = await fetch(`${api.url}/docs/`, { redirect: 'manual' });
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe('https://api.portico.example/docs');
  });
});
