// Delivery as a durable job (D15), with the clock in the test's hands: a transient failure answers 502
// and is retried in the background with growing, jittered waits until MAIL_RETRY_FOR runs out; a
// permanent refusal is not retried; a retry delivers the same message once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { contactDeps } from '../../src/deps.js';
import { FIRST_RETRY_MS, MAX_RETRY_MS } from '../../src/modules/contact/delivery.js';
import { deliverWaiting } from '../../src/modules/contact/redeliver.js';
import { idlePort, inquiry, startApp, type TestApp } from '../support/app.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

const HOUR = 3_600_000;

describe('delivery retried in the background', () => {
  let smtp: TestSmtpServer | undefined;
  let smtpPort: number;
  let api: TestApp;
  let now = Date.parse('2026-11-25T10:00:00Z');
  const retryWaiting = () => deliverWaiting(contactDeps(api.deps));
  const stored = async (id: string) => (await api.deps.inquiries.get(id))!;
  const newest = async () => (await api.deps.inquiries.list({ limit: 1 }))[0]!;

  beforeAll(async () => {
    smtpPort = await idlePort();
    api = await startApp({ SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, RATE_LIMITS: 'off', MAIL_RETRY_FOR: '6h' }, { clock: { now: () => now } });
  });
  afterEach(async () => {
    await smtp?.close();
    smtp = undefined;
  });
  afterAll(() => api.close());

  it('answers 502 saying it will retry, stores the inquiry failed with its first retry within 15 s, and delivers it once when the relay is back', async () => {
    const response = await api.post('/api/contact', inquiry({ name: 'Waiting Visitor' }), { 'Idempotency-Key': 'retry-1' });
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: 'delivery_failed', error_description: expect.stringContaining('retried automatically for up to 6 hours') });
    const failed = await newest();
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, lastError: expect.stringContaining('ECONNREFUSED') });
    expect(failed.nextAttemptAt! - now).toBeGreaterThanOrEqual(FIRST_RETRY_MS / 2);
    expect(failed.nextAttemptAt! - now).toBeLessThanOrEqual(FIRST_RETRY_MS);

    smtp = await startSmtpServer('accept', smtpPort);
    // Not due yet: nothing goes.
    expect(await retryWaiting()).toBe(0);
    now = failed.nextAttemptAt!;
    expect(await retryWaiting()).toBe(1);
    expect(await stored(failed.id)).toMatchObject({ status: 'sent', attempts: 2, nextAttemptAt: null, lastError: null });
    // MAIL_FROM is portico@localhost here: the Message-ID is the inquiry's id at its domain.
    expect(smtp.messages.map((m) => m.messageId)).toEqual([`<${failed.id}@localhost>`]);

    // The visitor's own retry of the same request now replays the success, sending nothing.
    const replay = await api.post('/api/contact', inquiry({ name: 'Waiting Visitor' }), { 'Idempotency-Key': 'retry-1' });
    expect(replay.status).toBe(200);
    expect(await retryWaiting()).toBe(0);
    expect(smtp.messages).toHaveLength(1);
  });

  it('waits about twice as long after each failure, never more than an hour, and gives up when MAIL_RETRY_FOR has passed since acceptance', async () => {
    const response = await api.post('/api/contact', inquiry({ name: 'Patient Visitor', email: 'patient@example.com' }));
    expect(response.status).toBe(502);
    const { id, createdAt } = await newest();
    const waits: number[] = [];
    for (;;) {
      const { nextAttemptAt } = await stored(id);
      if (nextAttemptAt === null) break;
      waits.push(nextAttemptAt - now);
      now = nextAttemptAt;
      await retryWaiting();
    }
    // Each wait is half to all of its step; the steps double from 15 s to the hour.
    for (const [i, wait] of waits.entries()) {
      const step = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** i);
      if (now - wait >= createdAt + 6 * HOUR - step) continue; // the last one is cut to the period's end
      expect(wait).toBeGreaterThanOrEqual(step / 2);
      expect(wait).toBeLessThanOrEqual(step);
    }
    // One last attempt at the end of the period, then no more.
    expect(now).toBe(createdAt + 6 * HOUR);
    expect(await stored(id)).toMatchObject({ status: 'failed', nextAttemptAt: null, attempts: waits.length + 1 });
    expect(api.logs.join('')).toContain('no retry left');
  });

  it.each([
    ['a temporary refusal (451 at MAIL FROM) is retried', 'tempfail@portico.example', true],
    ['a permanent refusal (550 at RCPT) is not', 'team@portico.example', false],
  ])('%s', async (_, from, retried) => {
    smtp = await startSmtpServer(retried ? 'accept' : 'reject-rcpt', smtpPort);
    const refusing = await startApp({ SMTP_URL: smtp.url, RATE_LIMITS: 'off', MAIL_FROM: from, MAIL_TO: 'team@portico.example' }, { clock: { now: () => now } });
    try {
      if (retried) smtp.mode = 'reject-mail';
      const response = await refusing.post('/api/contact', inquiry());
      expect(response.status).toBe(502);
      const failed = (await refusing.deps.inquiries.list({ limit: 1 }))[0]!;
      expect(failed.nextAttemptAt === null).toBe(!retried);
      expect(await response.json()).toMatchObject({ error_description: expect.stringContaining(retried ? 'retried automatically' : 'will not be retried automatically') });
    } finally {
      await refusing.close();
    }
  });
});
