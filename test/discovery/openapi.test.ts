// The OpenAPI 3.1 document is generated from the route tables and served as JSON and YAML.
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/errors.js';
import { startApp, type TestApp } from '../support/app.js';

describe('the OpenAPI document', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ PUBLIC_URL: 'https://api.portico.example', SANDBOX_URL: 'https://sandbox.portico.example' });
  });
  afterAll(() => api.close());
  const get = async (path: string) => {
    const response = await fetch(`${api.url}${path}`);
    expect(response.status).toBe(200);
    return response;
  };

  it('is OpenAPI 3.1.0 with API version 1.0.0 at /openapi.json and /api/openapi.json', async () => {
    const first = await (await get('/openapi.json')).json();
    expect(first).toMatchObject({ openapi: '3.1.0', info: { version: '1.0.0' } });
    expect(await (await get('/api/openapi.json')).json()).toEqual(first);
  });

  it('is the same document in YAML at /api/openapi.yaml', async () => {
    const response = await get('/api/openapi.yaml');
    expect(response.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(parse(await response.text())).toEqual(await (await get('/openapi.json')).json());
  });

  it('lists the production and sandbox servers', async () => {
    const { servers } = await (await get('/openapi.json')).json();
    expect(servers.map((s: { url: string }) => s.url)).toEqual(['https://api.portico.example', 'https://sandbox.portico.example']);
  });

  it('describes every mounted route, including itself, with no hand-written entry', async () => {
    const { paths } = await (await get('/openapi.json')).json();
    expect(Object.keys(paths).sort()).toEqual([
      '/',
      '/.well-known/ai-catalog.json',
      '/.well-known/mcp/server-card.json',
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/api/contact',
      '/.well-known/oauth-protected-resource/mcp',
      '/api/contact',
      '/api/openapi.json',
      '/api/openapi.yaml',
      '/docs',
      '/embed',
      '/embed/config.json',
      '/embed/contact-form.js',
      '/healthz',
      '/mcp',
      '/mcp/server-card',
      '/oauth/authorize',
      '/oauth/register',
      '/oauth/revoke',
      '/oauth/token',
      '/openapi.json',
      '/readyz',
    ]);
    expect(Object.keys(paths['/api/contact']).sort()).toEqual(['options', 'post']);
  });

  it('describes POST /api/contact: the request schema with its limits, every status, and its security', async () => {
    const doc = await (await get('/openapi.json')).json();
    const post = doc.paths['/api/contact'].post;
    expect(post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ContactRequest' });
    const request = doc.components.schemas.ContactRequest;
    expect(request.required.sort()).toEqual(['email', 'message', 'name', 'privacy']);
    expect(request.additionalProperties).toBe(false);
    expect(request.properties.name.maxLength).toBe(120);
    expect(request.properties.email.maxLength).toBe(254);
    expect(request.properties.message.maxLength).toBe(5000);
    expect(request.properties.locale).toMatchObject({ enum: ['es', 'en', 'ca', 'ru', 'eu', 'gl'], default: 'es' });
    expect(request.properties.privacy).toMatchObject({ const: true });
    expect(Object.keys(post.responses).sort()).toEqual(['200', '400', '401', '403', '409', '413', '415', '422', '429', '502', '503']);
    expect(post.responses['429'].headers).toHaveProperty('Retry-After');
    expect(post.security).toEqual([{ oauth2: ['contact:write'] }, {}]);
    expect(doc.security).toEqual([{ oauth2: ['docs:read'] }]);
  });

  it('lists every error code of the catalogue in the Error schema', async () => {
    const doc = await (await get('/openapi.json')).json();
    expect(doc.components.schemas.Error.properties.error.enum.sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
  });

  it('may be read from any origin', async () => {
    const response = await fetch(`${api.url}/openapi.json`, { headers: { origin: 'https://docs.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });
});
