// Inquiries a dead process left pending are delivered by the next one, once their attempt is stale.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactDeps } from '../../src/deps.js';
import { STALE_ATTEMPT_MS } from '../../src/modules/contact/delivery.js';
import { deliverWaiting } from '../../src/modules/contact/redeliver.js';
import { startApp, type TestApp } from '../support/app.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

describe('redelivery of stalled inquiries', () => {
  let smtp: TestSmtpServer;
  let api: TestApp;
  let now = Date.parse('2026-11-22T10:00:00Z');
  beforeAll(async () => {
    smtp = await startSmtpServer();
    api = await startApp({ SMTP_URL: smtp.url, RATE_LIMITS: 'off' }, { clock: { now: () => now } });
  });
  afterAll(async () => {
    await api.close();
    await smtp.close();
  });

  const orphan = async (id: string, claimed: boolean) => {
    const { inquiries } = api.deps;
    await inquiries.create({
      id,
      createdAt: now,
      status: 'pending',
      channel: 'web',
      name: 'Orphan',
      email: `${id}@example.com`,
      message: 'left behind',
      locale: 'en',
      topic: null,
      consent: null,
      clientId: null,
      remoteIp: '127.0.0.1',
      idempotencyKey: null,
      fingerprint: id,
      contentHash: 'c'.repeat(64),
      spamReasons: [],
    });
    if (claimed) await inquiries.claimDelivery(id, now, now - STALE_ATTEMPT_MS);
  };

  it('leaves a fresh pending inquiry alone: its own request may still be sending it', async () => {
    await orphan('fresh', true);
    expect(await deliverWaiting(contactDeps(api.deps))).toBe(0);
    expect((await api.deps.inquiries.get('fresh'))?.status).toBe('pending');
  });

  it('delivers stored and half-sent inquiries once their attempt is older than the stale window', async () => {
    await orphan('never-tried', false);
    now += STALE_ATTEMPT_MS + 1;
    expect(await deliverWaiting(contactDeps(api.deps))).toBe(2);
    expect(await api.deps.inquiries.get('fresh')).toMatchObject({ status: 'sent', attempts: 2 });
    expect(await api.deps.inquiries.get('never-tried')).toMatchObject({ status: 'sent', attempts: 1 });
    expect(smtp.messages.map((m) => m.replyTo?.value[0]?.address).sort()).toEqual(['fresh@example.com', 'never-tried@example.com']);
  });

  it('records a permanent refusal as failed with no next attempt, for the team to resend', async () => {
    await orphan('refused', true);
    now += STALE_ATTEMPT_MS + 1;
    smtp.mode = 'reject-rcpt';
    expect(await deliverWaiting(contactDeps(api.deps))).toBe(0);
    expect(await api.deps.inquiries.get('refused')).toMatchObject({ status: 'failed', nextAttemptAt: null, lastError: expect.stringContaining('550') });
    smtp.mode = 'accept';
  });
});
