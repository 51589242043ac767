// POST /api/contact checks browsers with Turnstile (siteverify) before anything is stored or sent.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inquiry, startApp, type TestApp } from '../support/app.js';
import { startSiteverify, type TestSiteverify } from '../support/siteverify-server.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

describe('POST /api/contact with Turnstile enabled', () => {
  let siteverify: TestSiteverify;
  let smtp: TestSmtpServer;
  let api: TestApp;
  beforeAll(async () => {
    siteverify = await startSiteverify();
    smtp = await startSmtpServer();
    api = await startApp({
      SMTP_URL: smtp.url,
      TURNSTILE_SECRET_KEY: siteverify.secret,
      TURNSTILE_SITE_KEY: 'site-key',
      TURNSTILE_VERIFY_URL: siteverify.url,
      PUBLIC_URL: 'http://localhost:3000',
      RATE_LIMITS: 'off',
    });
  });
  afterAll(async () => {
    await api.close();
    await smtp.close();
    await siteverify.close();
  });
  beforeEach(() => {
    siteverify.calls.length = 0;
    smtp.messages.length = 0;
  });
  const stored = async () => (await api.deps.inquiries.list({ limit: 1000 })).length;

  it('sends the secret, the token and the visitor IP to siteverify, then delivers', async () => {
    const response = await api.post('/api/contact', inquiry({ turnstileToken: 'pass-1' }));
    expect(response.status).toBe(200);
    expect(siteverify.calls).toEqual([{ secret: 'test-secret', response: 'pass-1', remoteip: '127.0.0.1', idempotency_key: expect.stringMatching(/^[0-9a-f-]{36}$/) }]);
    expect(smtp.messages).toHaveLength(1);
  });

  it('answers 400 when a browser sends no token', async () => {
    const response = await api.post('/api/contact', inquiry());
    expect(response.status).toBe(400);
    expect((await response.json()).error_description).toContain('turnstileToken');
    expect(siteverify.calls).toHaveLength(0);
  });

  it('answers 403 when Turnstile rejects the token, storing and sending nothing', async () => {
    const before = await stored();
    const response = await api.post('/api/contact', inquiry({ turnstileToken: 'fail-1' }));
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: 'human_check_failed', ok: false });
    expect(await stored()).toBe(before);
    expect(smtp.messages).toHaveLength(0);
  });

  it('answers 403 for an already spent token', async () => {
    expect((await api.post('/api/contact', inquiry({ turnstileToken: 'pass-spent' }))).status).toBe(200);
    const again = await api.post('/api/contact', inquiry({ turnstileToken: 'pass-spent', message: 'again' }));
    expect(again.status).toBe(403);
    expect((await again.json()).error_description).toContain('timeout-or-duplicate');
  });

  it('answers 403 when the token was solved on another hostname', async () => {
    const response = await api.post('/api/contact', inquiry({ turnstileToken: 'pass@evil.example' }));
    expect(response.status).toBe(403);
    expect((await response.json()).error_description).toContain('hostname');
  });

  it('answers 503 with Retry-After when siteverify reports internal-error twice', async () => {
    const response = await api.post('/api/contact', inquiry({ turnstileToken: 'internal-error' }));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await response.json()).toMatchObject({ error: 'human_check_unavailable', ok: false });
    expect(siteverify.calls).toHaveLength(2);
  });

  it('answers 503 when siteverify answers HTTP 500', async () => {
    expect((await api.post('/api/contact', inquiry({ turnstileToken: 'http-500' }))).status).toBe(503);
  });

  it('answers 503 within a bounded time when siteverify stalls, after one retry with the same idempotency_key', async () => {
    const started = Date.now();
    const response = await api.post('/api/contact', inquiry({ turnstileToken: 'stall' }));
    expect(response.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(siteverify.calls).toHaveLength(2);
    expect(siteverify.calls[0]?.idempotency_key).toBe(siteverify.calls[1]?.idempotency_key);
    expect(smtp.messages).toHaveLength(0);
  });

  it('succeeds when the first siteverify call stalls and the retry answers', async () => {
    const response = await api.post('/api/contact', inquiry({ turnstileToken: 'flaky' }));
    expect(response.status).toBe(200);
    expect(siteverify.calls).toHaveLength(2);
  });

  it('answers 503 when siteverify is unreachable', async () => {
    const down = await startApp({
      TURNSTILE_SECRET_KEY: 'test-secret',
      TURNSTILE_SITE_KEY: 'site-key',
      TURNSTILE_VERIFY_URL: 'http://127.0.0.1:9/siteverify',
      RATE_LIMITS: 'off',
    });
    try {
      const response = await down.post('/api/contact', inquiry({ turnstileToken: 'pass-x' }));
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await down.close();
    }
  });

  it('never writes the secret or the token to the logs', async () => {
    await api.post('/api/contact', inquiry({ turnstileToken: 'pass-secretive' }));
    await api.post('/api/contact', inquiry({ turnstileToken: 'stall' }));
    const logs = api.logs.join('');
    expect(logs).not.toContain('test-secret');
    expect(logs).not.toContain('pass-secretive');
  });
});

describe('POST /api/contact with Turnstile disabled', () => {
  it('accepts a browser inquiry without a token', async () => {
    const api = await startApp({ RATE_LIMITS: 'off' });
    try {
      expect((await api.post('/api/contact', inquiry())).status).toBe(200);
    } finally {
      await api.close();
    }
  });
});
