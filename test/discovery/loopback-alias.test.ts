// With a loopback PUBLIC_URL, the other loopback names on its port reach the server too (D3), but the
// metadata names PUBLIC_URL alone, and a client that checks it (RFC 9728 section 3.3) refuses it when it
// called another address. Such requests are answered as before, and the developer is told why.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startApp, type TestApp } from '../support/app.js';

/** A request to the server with the Host header a client that dialled `host` would send. */
function asHost(api: TestApp, host: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const { port } = new URL(api.url);
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: { host, ...init.headers } }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

const toolsList = (authorization: string) => ({
  method: 'POST',
  headers: { authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
});

describe('a loopback PUBLIC_URL reached by another loopback name', () => {
  let api: TestApp;
  let port: string;
  const warnings = () => api.logs.map((line) => JSON.parse(line)).filter((entry) => entry.level === 40 && /reached Portico as/.test(entry.msg));

  beforeAll(async () => {
    api = await startApp({}, { port: await freePort() });
    port = new URL(api.url).port;
  });
  afterAll(() => api.close());

  it('answers as before, and warns once for each such name, naming PUBLIC_URL', async () => {
    for (let i = 0; i < 3; i++) expect((await asHost(api, `localhost:${port}`, '/healthz')).status).toBe(200);
    expect((await asHost(api, `LOCALHOST:${port}`, '/.well-known/oauth-protected-resource/mcp')).status).toBe(200);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({ host: `localhost:${port}`, publicUrl: api.url });
    expect(warnings()[0].msg).toContain(`connect to ${api.url}`);
    expect((await asHost(api, `[::1]:${port}`, '/healthz')).status).toBe(200);
    expect(warnings().map((w) => w.host)).toEqual([`localhost:${port}`, `[::1]:${port}`]);
  });

  it("never warns about PUBLIC_URL's own name", async () => {
    const before = warnings().length;
    expect((await asHost(api, `127.0.0.1:${port}`, '/healthz')).status).toBe(200);
    expect(warnings()).toHaveLength(before);
  });

  it("names PUBLIC_URL in a 401's description on /mcp when the client came by another name", async () => {
    const aliased = await asHost(api, `localhost:${port}`, '/mcp', toolsList('Bearer not-a-token'));
    expect(aliased.status).toBe(401);
    const { error_description: description } = JSON.parse(aliased.body);
    expect(description).toContain(`this server is ${api.url} (PUBLIC_URL), not http://localhost:${port}`);
    expect(aliased.headers['www-authenticate']).toContain(`connect to ${api.url}"`);
    const direct = await asHost(api, `127.0.0.1:${port}`, '/mcp', toolsList('Bearer not-a-token'));
    expect(JSON.parse(direct.body).error_description).toBe('the access token is unknown, expired or revoked');
  });
});

describe('a PUBLIC_URL that is not loopback', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ PUBLIC_URL: 'https://api.portico.example', TRUST_PROXY: 'loopback' });
  });
  afterAll(() => api.close());

  it('has no aliases: other names are neither warned about nor advised', async () => {
    expect((await asHost(api, 'localhost', '/healthz')).status).toBe(200);
    const refused = await asHost(api, 'localhost', '/mcp', toolsList('Bearer not-a-token'));
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body).error_description).toBe('the access token is unknown, expired or revoked');
    expect(api.logs.filter((line) => line.includes('reached Portico as'))).toEqual([]);
  });
});
