// Answers carry what browsers need to take them for what they are: nosniff on every JSON answer (success,
// error, 404, a parser refusal), and Cross-Origin-Opener-Policy on the pages a person sees.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, inquiry, startApp, type TestApp } from '../support/app.js';

describe('security headers', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
  });
  afterAll(() => api.close());

  it.each([
    ['a discovery document', () => fetch(`${api.url}/.well-known/oauth-authorization-server`)],
    ['the OpenAPI document', () => fetch(`${api.url}/openapi.json`)],
    ['an accepted inquiry', () => api.post('/api/contact', inquiry())],
    ['a validation error', () => api.post('/api/contact', { name: 'x' })],
    ['an unknown path', () => fetch(`${api.url}/nowhere`)],
    ['a token error', () => fetch(`${api.url}/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password' }) })],
    ['an MCP answer', () => api.post('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' })],
  ])('sends X-Content-Type-Options: nosniff with %s', async (_case, request) => {
    const response = await request();
    expect(response.headers.get('content-type')).toMatch(/json/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('sends it with what the HTTP parser refuses before any route', async () => {
    const raw = await new Promise<string>((resolve) => {
      let text = '';
      const socket = connect(new URL(api.url).port as unknown as number, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      socket.on('data', (chunk) => (text += chunk)).on('close', () => resolve(text));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain('X-Content-Type-Options: nosniff\r\n');
  });

  it.each([
    [
      'the consent page',
      async () => {
        const registered = await (await api.post('/oauth/register', { redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' })).json();
        const query = new URLSearchParams({
          response_type: 'code',
          client_id: registered.client_id,
          redirect_uri: 'https://app.example/cb',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        });
        return fetch(`${api.url}/oauth/authorize?${query}`);
      },
    ],
    ['an authorization error page', () => fetch(`${api.url}/oauth/authorize?client_id=unknown`)],
    ['/docs', () => fetch(`${api.url}/docs`)],
  ])('sends Cross-Origin-Opener-Policy: same-origin with %s', async (_case, request) => {
    const response = await request();
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin');
  });
});
