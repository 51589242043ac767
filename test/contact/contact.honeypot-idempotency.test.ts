// D8: the honeypot fools bots without sending anything; Idempotency-Key makes retries safe.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inquiry, startApp, type TestApp } from '../support/app.js';
import { startSiteverify, type TestSiteverify } from '../support/siteverify-server.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

describe('the honeypot and Idempotency-Key on POST /api/contact', () => {
  let smtp: TestSmtpServer;
  let siteverify: TestSiteverify;
  let api: TestApp;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    siteverify = await startSiteverify();
    api = await startApp({
      SMTP_URL: smtp.url,
      TURNSTILE_SECRET_KEY: siteverify.secret,
      TURNSTILE_SITE_KEY: 'site-key',
      TURNSTILE_VERIFY_URL: siteverify.url,
      RATE_LIMITS: 'contact=100/h',
    });
  });
  afterAll(async () => {
    await api.close();
    await smtp.close();
    await siteverify.close();
  });
  beforeEach(() => {
    smtp.mode = 'accept';
    smtp.messages.length = 0;
    siteverify.calls.length = 0;
  });
  let n = 0;
  const token = () => `pass-${++n}`;

  it('answers a filled honeypot 200 {ok:true}, sends nothing, and keeps it as spam', async () => {
    const response = await api.post('/api/contact', inquiry({ website: 'http://spam.example', email: 'bot@example.com', turnstileToken: token() }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(smtp.messages).toHaveLength(0);
    expect(siteverify.calls).toHaveLength(0);
    const [spam] = await api.deps.inquiries.list({ status: 'spam', limit: 1 });
    expect(spam).toMatchObject({ email: 'bot@example.com', status: 'spam', attempts: 0 });
  });

  it('counts honeypot hits against the rate limit', async () => {
    const first = await api.post('/api/contact', inquiry({ website: 'x' }));
    const second = await api.post('/api/contact', inquiry({ website: 'x' }));
    expect(Number(second.headers.get('ratelimit-remaining'))).toBe(Number(first.headers.get('ratelimit-remaining')) - 1);
  });

  it('treats an empty website field as a human', async () => {
    expect((await api.post('/api/contact', inquiry({ message: 'No website here.', website: '', turnstileToken: token() }))).status).toBe(200);
    expect(smtp.messages).toHaveLength(1);
  });

  it('replays 200 for a repeat of a delivered request without a second e-mail or human check', async () => {
    const headers = { 'idempotency-key': 'order-1' };
    const body = inquiry({ message: 'idempotent', turnstileToken: token() });
    expect((await api.post('/api/contact', body, headers)).status).toBe(200);
    // A retry may carry a fresh (or the spent) token: it is not checked again.
    const retry = await api.post('/api/contact', { ...body, turnstileToken: 'pass-spent-already' }, headers);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ ok: true });
    expect(smtp.messages).toHaveLength(1);
    expect(siteverify.calls).toHaveLength(1);
  });

  it('answers 422 when the key is reused with a different body', async () => {
    const headers = { 'idempotency-key': 'order-2' };
    expect((await api.post('/api/contact', inquiry({ message: 'first', turnstileToken: token() }), headers)).status).toBe(200);
    const reuse = await api.post('/api/contact', inquiry({ message: 'second', turnstileToken: token() }), headers);
    expect(reuse.status).toBe(422);
    expect(await reuse.json()).toMatchObject({ error: 'idempotency_key_reused', ok: false });
    expect(smtp.messages).toHaveLength(1);
  });

  it('delivers the stored inquiry when a request that got 502 is retried with its key', async () => {
    const headers = { 'idempotency-key': 'order-3' };
    const body = inquiry({ message: 'retry me', turnstileToken: token() });
    smtp.mode = 'reject-rcpt';
    expect((await api.post('/api/contact', body, headers)).status).toBe(502);
    smtp.mode = 'accept';
    expect((await api.post('/api/contact', body, headers)).status).toBe(200);
    expect(smtp.messages).toHaveLength(1);
    // Stored under its sender (D14): an anonymous web request from this address.
    const kept = await api.deps.inquiries.findByIdempotencyKey('web@127.0.0.1 order-3');
    expect(kept).toMatchObject({ status: 'sent', attempts: 2 });
    expect((await api.deps.inquiries.list({ limit: 1000 })).filter((i) => i.message === 'retry me')).toHaveLength(1);
  });

  it('sends once when two requests with the same key race', async () => {
    const headers = { 'idempotency-key': 'order-4' };
    const body = inquiry({ message: 'race', turnstileToken: token() });
    const answers = await Promise.all([api.post('/api/contact', body, headers), api.post('/api/contact', { ...body, turnstileToken: token() }, headers)]);
    const statuses = answers.map((r) => r.status).sort();
    expect([
      [200, 200],
      [200, 409],
    ]).toContainEqual(statuses);
    const conflict = answers.find((r) => r.status === 409);
    if (conflict) expect(conflict.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(smtp.messages.filter((m) => m.text?.includes('race'))).toHaveLength(1);
  });

  it.each([
    ['an empty key', ''],
    ['a key with a space', 'a b'],
    ['a key of 256 characters', 'k'.repeat(256)],
    ['a non-ASCII key', 'clé'],
  ])('answers 400 for %s', async (_case, key) => {
    const response = await api.post('/api/contact', inquiry({ turnstileToken: token() }), { 'idempotency-key': key });
    expect(response.status).toBe(400);
    expect((await response.json()).error_description).toContain('Idempotency-Key');
  });
});
