// Turnstile over HTTPS, as Cloudflare's siteverify is: the adapter's TLS path, against a loopback
// server with a certificate made for the test, trusted by `portico serve` only through NODE_EXTRA_CA_CERTS.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { startSiteverify, type TestSiteverify } from '../support/siteverify-server.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { makeCertificate, OPENSSL } from '../support/smtp-tls.js';

if (!existsSync(OPENSSL)) console.warn('SKIPPED test/contact/contact.turnstile-https.test.ts: /usr/bin/openssl is missing.');

describe.skipIf(!existsSync(OPENSSL))('POST /api/contact with siteverify over HTTPS', () => {
  let dir: string;
  let certPath: string;
  let siteverify: TestSiteverify;
  let smtp: TestSmtpServer;
  const nodes: ServeProcess[] = [];

  const start = (env: Record<string, string>) =>
    startServe({
      DATABASE_URL: `sqlite:${join(dir, `${nodes.length}.sqlite`)}`,
      SMTP_URL: smtp.url,
      TURNSTILE_SECRET_KEY: siteverify.secret,
      TURNSTILE_SITE_KEY: 'site-key',
      TURNSTILE_VERIFY_URL: siteverify.url,
      RATE_LIMITS: 'off',
      ...env,
    }).then((node) => (nodes.push(node), node));

  const contact = async (node: ServeProcess, turnstileToken: string) => {
    const response = await fetch(`${node.url}/api/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ana García', email: 'ana@example.com', message: 'Sent through a TLS siteverify.', privacy: true, turnstileToken }),
    });
    return { status: response.status, body: (await response.json()) as { error?: string } };
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-siteverify-tls-'));
    // A self-signed certificate for the loopback address the server listens on.
    const certificate = await makeCertificate(dir, '127.0.0.1');
    certPath = certificate.certPath;
    siteverify = await startSiteverify('test-secret', { key: certificate.key, cert: certificate.cert });
    smtp = await startSmtpServer();
  }, 30_000);

  afterAll(async () => {
    for (const node of nodes) {
      node.child.kill('SIGTERM');
      await node.exited;
    }
    await smtp?.close();
    await siteverify?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('verifies a token over TLS and delivers, and refuses a token siteverify rejects', async () => {
    const node = await start({ NODE_EXTRA_CA_CERTS: certPath });
    // The node's own hostname is localhost (PUBLIC_URL unset): the token must have been solved there.
    expect(await contact(node, 'pass-tls@localhost')).toEqual({ status: 200, body: { ok: true } });
    expect(siteverify.calls.at(-1)).toMatchObject({ secret: 'test-secret', response: 'pass-tls@localhost' });
    expect((await contact(node, 'fail')).status).toBe(403);
    expect(smtp.messages).toHaveLength(1);
  });

  it('treats a certificate it cannot verify as an outage (503), never as a pass', async () => {
    const node = await start({ LOG_LEVEL: 'info' });
    const { status, body } = await contact(node, 'pass-untrusted@localhost');
    expect(status).toBe(503);
    expect(body.error).toBe('human_check_unavailable');
    expect(siteverify.calls.some((call) => call.response === 'pass-untrusted@localhost')).toBe(false);
    // Once the request's lines are written (at least once a second), none holds the secret.
    await vi.waitFor(() => expect(node.output()).toContain('"route":"/api/contact"'), { timeout: 3_000 });
    expect(node.output()).not.toContain('test-secret');
  });
});
