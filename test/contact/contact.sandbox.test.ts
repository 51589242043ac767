// D11: the sandbox build marks its e-mails and accepts Cloudflare's Turnstile test keys.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inquiry, startApp, type TestApp } from '../support/app.js';
import { outboxPath } from '../support/outbox.js';
import { startSiteverify, type TestSiteverify } from '../support/siteverify-server.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

const TEST_SECRET = '1x0000000000000000000000000000000AA';

describe('APP_ENV=sandbox', () => {
  let smtp: TestSmtpServer;
  let siteverify: TestSiteverify;
  let api: TestApp;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    siteverify = await startSiteverify(TEST_SECRET);
    api = await startApp({
      APP_ENV: 'sandbox',
      SMTP_URL: smtp.url,
      TURNSTILE_SECRET_KEY: TEST_SECRET,
      TURNSTILE_SITE_KEY: '1x00000000000000000000AA',
      TURNSTILE_VERIFY_URL: siteverify.url,
      RATE_LIMITS: 'off',
    });
  });
  afterAll(async () => {
    await api.close();
    await smtp.close();
    await siteverify.close();
  });

  it('prefixes the subject with [SANDBOX]', async () => {
    expect((await api.post('/api/contact', inquiry({ turnstileToken: 'pass-1' }))).status).toBe(200);
    expect(smtp.messages.at(-1)?.subject).toMatch(/^\[SANDBOX\] /);
  });

  it('accepts a test-key token whatever hostname Cloudflare reports (example.com)', async () => {
    expect((await api.post('/api/contact', inquiry({ turnstileToken: 'pass@example.com' }))).status).toBe(200);
  });

  it('still refuses a token the test key rejects', async () => {
    expect((await api.post('/api/contact', inquiry({ turnstileToken: 'fail-1' }))).status).toBe(403);
  });
});

describe('APP_ENV=development', () => {
  it('sends subjects without the sandbox prefix, to the outbox folder when SMTP_URL is unset', async () => {
    const api = await startApp({ RATE_LIMITS: 'off' });
    try {
      expect((await api.post('/api/contact', inquiry({ name: 'Outbox Reader' }))).status).toBe(200);
      const [stored] = await api.deps.inquiries.list({ limit: 1 });
      const eml = await readFile(outboxPath(`${api.dir}/outbox`, stored!), 'utf8');
      expect(eml).toMatch(/^Subject: Nueva consulta de Outbox Reader \[es\]/m);
      expect(eml).toMatch(/^Reply-To: Outbox Reader <ana@example.com>/m);
      expect(stored?.status).toBe('sent');
    } finally {
      await api.close();
    }
  });
});
