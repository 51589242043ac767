// Request logs (README, "Logs"): one access line per request, the request's id on every line it logs,
// an X-Request-Id taken from trusted proxies only, and no line lost when the process is stopped.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';
import { startServe } from '../support/serve-process.js';
import { startAuthorizationServer } from '../conformance/support/authorization-server.js';
import { OAuthTestClient } from '../conformance/support/oauth-client.js';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  [field: string]: unknown;
}

const parse = (output: string): Line[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);
const accessLines = (lines: Line[]) => lines.filter((line) => line.msg === 'request');

describe('the access line', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp();
  });
  afterAll(() => api.close());

  const linesOf = (reqId: string) => parse(api.logs.join('')).filter((line) => line.reqId === reqId);
  const lastAccessLine = () => accessLines(parse(api.logs.join(''))).at(-1)!;

  it('is one line a request: method, route, status, duration, request id, client IP and the lengths of both bodies', async () => {
    const before = accessLines(parse(api.logs.join(''))).length;
    const response = await api.post('/api/contact', { name: 'Ana' });
    expect(response.status).toBe(400);
    const line = lastAccessLine();
    expect(accessLines(parse(api.logs.join('')))).toHaveLength(before + 1);
    expect(line).toMatchObject({ level: 30, method: 'POST', route: '/api/contact', status: 400, ip: '127.0.0.1', requestBytes: 14, responseBytes: Number(response.headers.get('content-length')) });
    expect(line.ms).toEqual(expect.any(Number));
    expect(line.reqId).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    expect(linesOf(line.reqId!)).toEqual([line]);
  });

  it('carries the moment it was written, in milliseconds since the epoch as pino writes its own lines', async () => {
    for (let i = 0; i < 2; i++) {
      const before = Date.now();
      await fetch(`${api.url}/healthz`);
      expect(lastAccessLine().time).toBeGreaterThanOrEqual(before);
      expect(lastAccessLine().time).toBeLessThanOrEqual(Date.now());
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });

  it('gives every request its own id', async () => {
    for (let i = 0; i < 3; i++) await fetch(`${api.url}/healthz`);
    const ids = accessLines(parse(api.logs.join(''))).map((line) => line.reqId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names the route, not the path, and never the query string', async () => {
    await fetch(`${api.url}/.well-known/oauth-protected-resource/api/contact?access_token=secret-in-query`);
    expect(lastAccessLine()).toMatchObject({ route: '/.well-known/oauth-protected-resource/api/contact', status: 200 });
    expect(api.logs.join('')).not.toContain('secret-in-query');
  });

  it('gives the path of a request no route served, without its query and cut to 200 characters', async () => {
    const response = await fetch(`${api.url}/${'x'.repeat(300)}?token=secret-in-query`);
    const line = lastAccessLine();
    expect(line).toMatchObject({ status: 404, path: `/${'x'.repeat(199)}...`, responseBytes: Number(response.headers.get('content-length')) });
    expect(line.route).toBeUndefined();
    expect(api.logs.join('')).not.toContain('secret-in-query');
  });

  it('says so, at warn, when the client went away before its answer was sent', async () => {
    const socket = connect(new URL(api.url).port as unknown as number, '127.0.0.1');
    await once(socket, 'connect');
    // A body announced and never sent: the request waits for it until the client leaves.
    socket.write(`POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = parse(api.logs.join('')).length;
    socket.destroy();
    const line = await vi.waitFor(() => {
      const unanswered = parse(api.logs.join(''))
        .slice(before)
        .find((l) => l.msg === 'request not answered');
      expect(unanswered).toBeDefined();
      return unanswered!;
    });
    expect(line).toMatchObject({ level: 40, method: 'POST', route: '/api/contact', requestBytes: 100 });
    // No status was sent: none is logged.
    expect(line).not.toHaveProperty('status');
    expect(line.reqId).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
  });

  it('ignores an X-Request-Id when no proxy is trusted: any client could set it', async () => {
    await fetch(`${api.url}/healthz`, { headers: { 'x-request-id': 'chosen-by-the-client' } });
    expect(lastAccessLine().reqId).not.toBe('chosen-by-the-client');
  });
});

describe('requests left unanswered by the dozen', () => {
  let api: TestApp;
  let now = Date.now();
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { clock: { now: () => now } });
  });
  afterAll(() => api.close());

  /** A request from `from` whose body never comes, dropped by its client. */
  const abandoned = async (from: string) => {
    const socket = connect({ port: Number(new URL(api.url).port), host: '127.0.0.1', localAddress: from });
    await once(socket, 'connect');
    socket.write(`POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
  };
  const unansweredFrom = (ip: string) => parse(api.logs.join('')).filter((line) => line.msg === 'request not answered' && line.ip === ip);

  it('writes one line an address a minute, then one with how many it left out, as for closed connections', async () => {
    for (let i = 0; i < 6; i++) await abandoned('127.0.0.21');
    await abandoned('127.0.0.22');
    await vi.waitFor(() => expect(unansweredFrom('127.0.0.22')).toHaveLength(1));
    expect(unansweredFrom('127.0.0.21')).toHaveLength(1);
    expect(unansweredFrom('127.0.0.21')[0]).not.toHaveProperty('moreSinceLastLine');
    now += 60_000;
    await abandoned('127.0.0.21');
    await vi.waitFor(() => expect(unansweredFrom('127.0.0.21')).toHaveLength(2));
    expect(unansweredFrom('127.0.0.21')[1]).toMatchObject({ level: 40, moreSinceLastLine: 5 });
  });
});

describe('behind a trusted proxy (TRUST_PROXY)', () => {
  let api: TestApp;
  let http: OAuthTestClient;
  beforeAll(async () => {
    api = await startAuthorizationServer({ TRUST_PROXY: 'loopback' });
    http = new OAuthTestClient(api.url);
  });
  afterAll(() => api.close());
  const lines = () => parse(api.logs.join(''));

  it("takes the proxy's X-Request-Id as the request's id, and the client's address from X-Forwarded-For", async () => {
    await fetch(`${api.url}/healthz`, { headers: { 'x-request-id': '3f2a9c1e7b6d4e5f8a9b0c1d2e3f4a5b', 'x-forwarded-for': '203.0.113.9' } });
    expect(accessLines(lines()).at(-1)).toMatchObject({ reqId: '3f2a9c1e7b6d4e5f8a9b0c1d2e3f4a5b', ip: '203.0.113.9' });
  });

  it('writes one JSON line whatever the path, the X-Request-Id or X-Forwarded-For hold', async () => {
    const socket = connect(Number(new URL(api.url).port), '127.0.0.1');
    await once(socket, 'connect');
    const id = 'a"b\\c';
    socket.end(`GET /nowhere/"quoted"\\back HTTP/1.1\r\nHost: x\r\nX-Request-Id: ${id}\r\nX-Forwarded-For: 203.0.113.9"\\\r\nConnection: close\r\n\r\n`);
    for await (const _ of socket);
    await vi.waitFor(() => expect(accessLines(lines()).at(-1)).toMatchObject({ reqId: id, path: '/nowhere/"quoted"\\back', ip: '203.0.113.9"\\', status: 404 }));
  });

  it('makes its own id when the X-Request-Id is empty, too long, or holds a space or a character beyond ASCII', async () => {
    for (const bad of ['', 'x'.repeat(129), 'two words', 'caf\u00e9']) {
      await fetch(`${api.url}/healthz`, { headers: { 'x-request-id': bad } });
      expect(accessLines(lines()).at(-1)!.reqId).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    }
  });

  it('puts the request id on every line the request logs: a replayed code is told with the id of the request that replayed it', async () => {
    const web = await http.registerWebClient();
    const result = await http.authorizeAndConsent(web);
    expect((await http.exchange(web, result)).status).toBe(200);
    const [form, headers] = [
      { grant_type: 'authorization_code', code: result.code, redirect_uri: result.redirectUri, code_verifier: result.verifier },
      { authorization: `Basic ${Buffer.from(`${web.client_id}:${web.client_secret}`).toString('base64')}`, 'x-request-id': 'replay-1' },
    ];
    expect((await http.token(form, headers)).status).toBe(400);
    const ofReplay = lines().filter((line) => line.reqId === 'replay-1');
    expect(ofReplay.map((line) => line.msg)).toEqual(['authorization code replayed; its grant is revoked', 'request']);
    expect(ofReplay[0]).toMatchObject({ level: 40, client: web.client_id });
    expect(ofReplay[1]).toMatchObject({ route: '/oauth/token', status: 400 });
  });
});

describe("portico serve's log on stdout", () => {
  const serve = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'portico-request-log-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    return startServe({ LOG_LEVEL: 'info', DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}` }, { cwd: dir });
  };

  it("says it is serving at once, and writes a quiet moment's access line within a second", async () => {
    const server = await serve();
    onTestFinished(() => void server.child.kill('SIGKILL'));
    await vi.waitFor(() => expect(server.output()).toContain('portico is serving'), { timeout: 500 });
    await fetch(`${server.url}/healthz`);
    const answered = performance.now();
    await vi.waitFor(() => expect(accessLines(parse(server.output())).map((line) => line.route)).toContain('/healthz'), { timeout: 2_000, interval: 20 });
    expect(performance.now() - answered).toBeLessThan(1_500);
  });

  it('has written, once stopped by SIGTERM, the access line of every request it answered', { timeout: 30_000 }, async () => {
    const server = await serve();
    let answered = 0;
    let stopped = false;
    const client = async () => {
      while (!stopped) {
        const response = await fetch(`${server.url}/.well-known/oauth-authorization-server`).catch(() => undefined);
        if (!response) return;
        await response.arrayBuffer();
        if (response.status === 200) answered++;
      }
    };
    const clients = Array.from({ length: 20 }, client);
    // Stopped in the middle of the load: requests are in flight and lines are waiting to be written.
    while (answered < 2_000) await new Promise((resolve) => setTimeout(resolve, 5));
    server.child.kill('SIGTERM');
    const exited = await server.exited;
    stopped = true;
    await Promise.all(clients);
    const output = server.output();
    expect(exited).toEqual({ code: 0, signal: null });
    const logged = accessLines(parse(output)).filter((line) => line.route === '/.well-known/oauth-authorization-server' && line.status === 200);
    expect(logged.length).toBeGreaterThanOrEqual(answered);
  });
});
