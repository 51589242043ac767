// `portico doctor` as a process against servers on loopback that give no answer at all: a certificate this
// machine does not trust, a port that takes the connection and never speaks TLS, plain http where https was
// asked, a server that takes the request and never answers. Each is the URL not reached: one line on stderr
// with what to fix, exit 2, and no more than one budget spent on it.
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificate } from '../support/smtp-tls.js';
import { lines, runCli } from './cli-harness.js';

/** `server` listening on a loopback port, and its closing (open connections too). */
async function listen(server: Server): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<{ destroy(): void }>();
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** `portico doctor URL --timeout 1`, and how long it took. */
async function doctor(url: string, env: Record<string, string> = {}) {
  const started = performance.now();
  const result = await runCli(['doctor', url, '--timeout', '1'], env);
  return { ...result, ms: performance.now() - started };
}

describe('portico doctor against a server that gives no answer', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-doctor-unreachable-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('exits 2 with one line naming NODE_EXTRA_CA_CERTS when the certificate is self-signed, and reaches the server once that trusts it', async () => {
    const { certPath, key, cert } = await makeCertificate(dir, '127.0.0.1');
    const server = await listen(createHttpsServer({ key, cert }, (_req, res) => res.writeHead(404).end()));
    try {
      const url = `https://127.0.0.1:${server.port}`;
      const { code, stdout, stderr } = await doctor(url);
      expect(code, stderr).toBe(2);
      expect(stdout).toBe('');
      expect(lines(stderr)).toEqual([
        `portico: cannot reach ${url}: the certificate is not signed by an authority this machine trusts (DEPTH_ZERO_SELF_SIGNED_CERT); serve the whole chain (fullchain.pem, not cert.pem); for a private CA, run doctor with NODE_EXTRA_CA_CERTS=ca.pem (hosts on the internet accept only public CAs)`,
      ]);
      // Trusted, the same server is reached: it is no Portico, so its checks fail (exit 1).
      const trusted = await doctor(url, { NODE_EXTRA_CA_CERTS: certPath });
      expect(trusted.code, trusted.stderr).toBe(1);
      expect(trusted.stdout).toMatch(/^ok +\d+ ms +reach +https:\/\/127\.0\.0\.1:\d+ answers \(GET \/\.well-known\/oauth-protected-resource: 404\)$/m);
      expect(trusted.stdout).toMatch(/^warn +\d+ ms +https +certificate for 127\.0\.0\.1 from 127\.0\.0\.1, valid for 127\.0\.0\.1 until /m);
    } finally {
      await server.close();
    }
  });

  it('exits 2 when the port takes the connection and never speaks TLS, within one budget', async () => {
    const server = await listen(createTcpServer(() => undefined));
    try {
      const { code, stdout, stderr, ms } = await doctor(`https://127.0.0.1:${server.port}`);
      expect(code, stderr).toBe(2);
      expect(stdout).toBe('');
      expect(lines(stderr)).toEqual([
        `portico: cannot reach https://127.0.0.1:${server.port}: 127.0.0.1:${server.port} took the connection, but the TLS handshake did not finish within 1 s; put the TLS proxy on this port, or see its error log for the handshake`,
      ]);
      expect(ms).toBeLessThan(1_000 + 2_000);
    } finally {
      await server.close();
    }
  });

  it('exits 2 when https is asked of a port that answers plain http', async () => {
    const server = await listen(createHttpServer((_req, res) => res.writeHead(404).end()));
    try {
      const { code, stderr } = await doctor(`https://127.0.0.1:${server.port}`);
      expect(code, stderr).toBe(2);
      expect(lines(stderr)).toEqual([
        `portico: cannot reach https://127.0.0.1:${server.port}: 127.0.0.1 answers plain http on this port, not TLS; use http:// for a loopback trial, or put the TLS proxy on this port`,
      ]);
    } finally {
      await server.close();
    }
  });

  it('exits 2 when the server takes the request and never answers, asking nothing more, within one budget', async () => {
    const server = await listen(createHttpServer(() => undefined));
    try {
      const { code, stdout, stderr, ms } = await doctor(`http://127.0.0.1:${server.port}`);
      expect(code, stderr).toBe(2);
      expect(stdout).toBe('');
      expect(lines(stderr)).toEqual([
        `portico: cannot reach http://127.0.0.1:${server.port}: 127.0.0.1:${server.port} took the connection but sent no answer within 1 s; find what holds it: the proxy (its error log, proxy_read_timeout), the node (its log, its load), the database (portico check on the node)`,
      ]);
      expect(ms).toBeLessThan(1_000 + 2_000);
    } finally {
      await server.close();
    }
  });
});
