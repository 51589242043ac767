// `portico doctor` as a process against a real `portico serve` on loopback: every check passes with its
// time and nothing is created; a closed port is one line and exit 2; a server slower than the budget fails
// the time check by name (through a loopback proxy that holds one path back); hostile answers (nested JSON,
// an endless body, redirects) cost it no more than its budget and 200 MB. Servers that give no answer at
// all (TLS refused, silence) are cli.doctor.unreachable.test.ts.
import { spawn } from 'node:child_process';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/app.js';
import { peakRssUntil } from '../support/floods.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { CLI, lines, ROOT, runCli, workspace, type Workspace } from './cli-harness.js';

/** Every check a run against a healthy deployment lists, in order. */
const CHECKS = [
  'reach',
  'https',
  'time',
  'resource /',
  'resource /mcp',
  'resource /api/contact',
  'issuer',
  'pkce',
  'iss parameter',
  'client id documents',
  'registration',
  'endpoints',
  'token endpoint',
  'registration endpoint',
  'challenge',
  'challenge metadata',
  'tools/list 2025-11-25',
  'tools/list 2026-07-28',
  'app resource',
  'cors discovery',
];

/** An HTTP proxy on loopback to `upstream` that holds the answer to GETs of paths starting with `slowPath` for `delayMs`. */
async function delayingProxy(upstream: () => string, slowPath: string, delayMs: number): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const forward = () => {
      const target = new URL(req.url!, upstream());
      const out = request(target, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      req.pipe(out);
    };
    if (req.method === 'GET' && req.url!.startsWith(slowPath)) setTimeout(forward, delayMs);
    else forward();
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('portico doctor against portico serve on loopback', () => {
  let space: Workspace;
  let server: ServeProcess;
  beforeAll(async () => {
    space = await workspace();
    const port = await freePort();
    server = await startServe({ ...space.env, PUBLIC_URL: `http://127.0.0.1:${port}` }, { port });
  }, 30_000);
  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    await space.remove();
  });

  it('passes every check, each listed with its time, and exits 0', async () => {
    const { code, stdout, stderr } = await runCli(['doctor', server.url, '--origin', server.url], space.env);
    expect(code, stdout).toBe(0);
    expect(stderr).toBe('');
    const found = lines(stdout);
    const checks = found.slice(0, -1);
    for (const line of checks) expect(line).toMatch(/^ok {4}\s*\d+ ms {2}\S/);
    for (const check of [...CHECKS, `cors /api/contact ${server.url}`, 'proxy']) expect(checks.some((line) => line.includes(`  ${check}  `))).toBe(true);
    expect(found.at(-1)).toBe(`ok: ${checks.length} passed (${server.url}, each request within 10 s)`);
    expect(stdout).toMatch(/^ok +\d+ ms +https +plain http on loopback \(127\.0\.0\.1\): hosts accept it here only/m);
    expect(stdout).toMatch(/^ok +\d+ ms +client id documents +Client ID Metadata Documents with public clients \(none\)/m);
  });

  it('reads PUBLIC_URL when given no URL, and writes the same findings as one JSON document with --json', async () => {
    const { code, stdout } = await runCli(['doctor', '--json'], { ...space.env, PUBLIC_URL: server.url });
    expect(code).toBe(0);
    expect(lines(stdout)).toHaveLength(1);
    const document = JSON.parse(stdout);
    expect(document).toMatchObject({ url: server.url, budgetSeconds: 10, outcome: 'pass', exitCode: 0 });
    expect(document.checks.map((c: { check: string }) => c.check)).toEqual([...CHECKS, 'cors /api/contact', 'proxy']);
    expect(document.checks.find((c: { check: string }) => c.check === 'resource /mcp')).toMatchObject({ status: 'pass', ms: expect.any(Number) });
    // Every request, with its time: discovery, the two endpoints, /mcp four times, the preflights.
    expect(document.requests.length).toBeGreaterThanOrEqual(15);
    expect(document.requests[0]).toEqual({ method: 'GET', url: `${server.url}/.well-known/oauth-protected-resource`, status: 200, ms: expect.any(Number) });
  });

  it('creates nothing on the server: no client registered, no inquiry stored', async () => {
    expect((await space.cli('clients', 'list')).stdout.trim()).toBe('no clients');
    expect(JSON.parse((await space.cli('inquiries', 'list', '--format', 'json')).stdout)).toEqual([]);
  });

  it('fails the /api/contact preflight of an origin CONTACT_ALLOWED_ORIGINS does not list, naming the setting', async () => {
    const { code, stdout } = await runCli(['doctor', server.url, '--origin', 'https://shop.example.com'], space.env);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^FAIL +\d+ ms +cors \/api\/contact https:\/\/shop\.example\.com +.*Fix: add https:\/\/shop\.example\.com to CONTACT_ALLOWED_ORIGINS on every node/m);
    expect(lines(stdout).at(-1)).toMatch(/^failed: \d+ passed, 1 failed \(/);
  });

  it('exits 2 with one line when nothing listens at the URL', async () => {
    const port = await freePort();
    const { code, stdout, stderr } = await runCli(['doctor', `http://127.0.0.1:${port}`], {});
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(lines(stderr)).toEqual([
      `portico: cannot reach http://127.0.0.1:${port}: connection refused: nothing listens on 127.0.0.1:${port}; start Portico (portico serve) and the proxy in front of it, or give doctor the address hosts use`,
    ]);
  });

  it('refuses a URL that is not an address, as a usage mistake', async () => {
    const { code, stderr } = await runCli(['doctor', 'api.example.com'], {});
    expect(code).toBe(1);
    expect(stderr).toBe("portico: doctor: api.example.com is not a URL; give the deployment's address as PUBLIC_URL names it, such as https://api.example.com\n");
  });
});

describe('portico doctor against a server slower than the budget', () => {
  let space: Workspace;
  let server: ServeProcess;
  let proxy: Awaited<ReturnType<typeof delayingProxy>>;
  beforeAll(async () => {
    space = await workspace();
    proxy = await delayingProxy(() => server.url, '/.well-known/oauth-authorization-server', 2_500);
    server = await startServe({ ...space.env, PUBLIC_URL: `http://127.0.0.1:${proxy.port}` });
  }, 30_000);
  afterAll(async () => {
    await proxy?.close();
    server?.child.kill('SIGTERM');
    await server?.exited;
    await space.remove();
  });

  it('fails the time check naming the request that did not answer within it, and exits 1', async () => {
    const { code, stdout } = await runCli(['doctor', `http://127.0.0.1:${proxy.port}`, '--timeout', '1'], space.env);
    expect(code, stdout).toBe(1);
    expect(stdout).toMatch(/^FAIL +1\.0 s +time +GET \/\.well-known\/oauth-authorization-server: no answer within 1 s, where MCP hosts give up\. Fix: find what holds it/m);
    expect(stdout).toMatch(/^ok +\d+ ms +resource \/mcp /m);
    expect(lines(stdout).at(-1)).toMatch(/each request within 1 s\)$/);
  });
});

/** A server on loopback that answers every request with `answer`. */
async function answering(answer: (res: ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    answer(res);
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** `portico doctor ARGS` as an operator runs it (the bin), with its highest resident memory and its time. */
async function doctorMeasured(args: string[]): Promise<{ code: number | null; stdout: string; peakMb: number; ms: number }> {
  const started = performance.now();
  const child = spawn(join(ROOT, CLI), ['doctor', ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['ignore', 'pipe', 'ignore'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  const peakMb = await peakRssUntil(child.pid!, closed);
  return { code: await closed, stdout, peakMb, ms: performance.now() - started };
}

describe('portico doctor against hostile answers', () => {
  it('reads no more than 1 MB of an answer: 4 MB of nested arrays on every path end within the budget and under 200 MB', async () => {
    const nested = '['.repeat(2 * 1024 * 1024) + ']'.repeat(2 * 1024 * 1024);
    const server = await answering((res) => res.writeHead(200, { 'content-type': 'application/json' }).end(nested));
    try {
      const run = await doctorMeasured([server.url, '--timeout', '5']);
      expect(run.code, run.stdout).toBe(1);
      expect(run.ms).toBeLessThan(5_000);
      expect(run.peakMb).toBeLessThan(200);
      expect(run.stdout).toMatch(/^FAIL .* reach +GET \/\.well-known\/oauth-protected-resource: the answer is longer than 1 MB; not read further/m);
    } finally {
      await server.close();
    }
  });

  it('stops reading an endless body, within the budget and under 200 MB', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const server = await answering((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const more = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', more);
      };
      more();
    });
    try {
      const run = await doctorMeasured([server.url, '--timeout', '5']);
      expect(run.code, run.stdout).toBe(1);
      expect(run.ms).toBeLessThan(5_000);
      expect(run.peakMb).toBeLessThan(200);
      expect(run.stdout).toContain('the answer is longer than 1 MB; not read further');
    } finally {
      await server.close();
    }
  });

  it('claims nothing of a proxy that answers every request with a redirect', async () => {
    const server = await answering((res) => res.writeHead(302, { location: 'https://elsewhere.example/' }).end());
    try {
      const run = await doctorMeasured([server.url, '--timeout', '5']);
      expect(run.code, run.stdout).toBe(1);
      expect(run.stdout).toMatch(/^skip +- +proxy +no answer to read$/m);
    } finally {
      await server.close();
    }
  });
});
