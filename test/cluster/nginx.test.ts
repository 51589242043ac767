// Two nodes behind Debian's nginx with the configuration docs/deploy.md gives
// (deploy/nginx/portico-proxy.conf) and TRUST_PROXY=1: requests reach both nodes, the per-IP limits
// count the address nginx saw (a forged X-Forwarded-For changes nothing), and /mcp works through it.
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.js';
import { hasNginx, NGINX, startCluster, type Cluster, type Nginx } from '../support/nginx.js';
import { redisAvailable } from '../support/redis.js';
import type { ServeProcess } from '../support/serve-process.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

if (!hasNginx) console.warn(`SKIPPED test/cluster/nginx.test.ts: ${NGINX} is missing. Install Debian's nginx-light (as .ci/run does).`);
const available = hasNginx && (await postgresAvailable('test/cluster/nginx.test.ts')) && (await redisAvailable('test/cluster/nginx.test.ts'));

/** A POST from a chosen loopback address (127.0.0.2 is another client), with any headers. */
function postFrom(localAddress: string, url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', localAddress, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.skipIf(!available)('two nodes behind nginx', () => {
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  let cluster: Cluster;
  let nodes: ServeProcess[];
  let nginx: Nginx;
  let proxy: string;

  beforeAll(async () => {
    database = await createDatabase();
    smtp = await startSmtpServer();
    cluster = await startCluster(database.url, { SMTP_URL: smtp.url, MAIL_FROM: 'web@portico.example', MAIL_TO: 'team@portico.example', LOG_LEVEL: 'info' }, { accessLog: true });
    ({ proxy, nodes, nginx } = cluster);
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
    await smtp?.close();
    await database?.drop();
  });

  it('spreads requests over both nodes', async () => {
    for (let i = 0; i < 10; i++) await (await fetch(`${proxy}/.well-known/oauth-authorization-server`)).arrayBuffer();
    // A node writes its lines at least once a second.
    for (const node of nodes) await vi.waitFor(() => expect(node.output()).toContain('"route":"/.well-known/oauth-authorization-server"'), { timeout: 3_000 });
  });

  it("names each request by nginx's $request_id, never by an id the client sent: both logs name it alike", async () => {
    await (await fetch(`${proxy}/.well-known/oauth-protected-resource/mcp`, { headers: { 'x-request-id': 'forged-by-the-client' } })).arrayBuffer();
    const lines = () => nodes.flatMap((node) => node.output().split('\n')).filter((line) => line.includes('"route":"/.well-known/oauth-protected-resource/mcp"'));
    await vi.waitFor(() => expect(lines()).toHaveLength(1), { timeout: 3_000 });
    const { reqId } = JSON.parse(lines()[0]!) as { reqId: string };
    expect(reqId).toMatch(/^[0-9a-f]{32}$/);
    expect(await readFile(nginx.accessLog, 'utf8')).toContain(`${reqId} /.well-known/oauth-protected-resource/mcp`);
  });

  it('serves the discovery documents under the public URL, as the issuer', async () => {
    const metadata = await (await fetch(`${proxy}/.well-known/oauth-authorization-server`)).json();
    expect(metadata.issuer).toBe(proxy);
  });

  it('counts the contact limit per client address nginx saw, whatever X-Forwarded-For the client forged', async () => {
    const inquiry = JSON.stringify({ name: 'Ana García', email: 'ana@example.com', message: 'A demo, please.', privacy: true });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const forged = `198.51.100.${i}`;
      statuses.push((await postFrom('127.0.0.1', `${proxy}/api/contact`, { 'content-type': 'application/json', 'x-forwarded-for': forged }, inquiry)).status);
    }
    expect(statuses).toEqual([...Array(8).fill(200), 429, 429]);
    // Another client (another address) has its own budget: the nodes read the address from nginx.
    expect((await postFrom('127.0.0.2', `${proxy}/api/contact`, { 'content-type': 'application/json' }, inquiry)).status).toBe(200);
  });

  it('passes the Host through, so /mcp answers through the proxy', async () => {
    const response = await fetch(`${proxy}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'proxy-test', version: '1' } } }),
    });
    expect(response.status).toBe(200);
    expect((await response.json()).result.serverInfo).toBeDefined();
  });

  it('limits the requests one client address has under way, while another client is served', async () => {
    const { hostname, port } = new URL(proxy);
    // Requests whose body never ends: under way at nginx, which reads a body before it passes it on.
    const held = await Promise.all(
      Array.from(
        { length: 32 },
        () =>
          new Promise<Socket>((resolve, reject) => {
            const socket = connect({ host: hostname, port: Number(port), localAddress: '127.0.0.3' }, () => {
              socket.write(`POST /api/contact HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
              resolve(socket);
            });
            socket.on('error', reject);
          }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    // nginx's own answer (no node's JSON), and no node rate limit behind it: /healthz has none.
    const refused = await postFrom('127.0.0.3', `${proxy}/healthz`, {}, '');
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('nginx');
    expect((await fetch(`${proxy}/healthz`)).status).toBe(200);
    for (const socket of held) socket.destroy();
  });
});
