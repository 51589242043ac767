// The webhook channel (D15, WEBHOOK_URL): each inquiry POSTed to the operator's endpoint, signed as the
// Standard Webhooks specification says and verified here by its reference library, with the inquiry's
// id as the webhook-id on every attempt, through 500s, timeouts, redirects and a restart; beside
// e-mail, each channel gets the inquiry once.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contactDeps } from '../../src/deps.js';
import { deliverWaiting } from '../../src/modules/contact/redeliver.js';
import { inquiry, startApp, type TestApp } from '../support/app.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
// Near the real time: the receiver refuses a webhook-timestamp more than 5 minutes off its own clock.
let now = Date.now();
const clock = { now: () => now };

const opened: { close(): Promise<unknown> }[] = [];
const track = <T extends { close(): Promise<unknown> }>(thing: T): T => (opened.push(thing), thing);
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});

const startNode = async (env: Record<string, string>, dir?: string): Promise<TestApp> =>
  track(await startApp({ RATE_LIMITS: 'off', WEBHOOK_SECRET: SECRET, ...env }, { clock, ...(dir ? { dir } : {}) }));
const newest = async (api: TestApp) => (await api.deps.inquiries.list({ limit: 1 }))[0]!;
/** Moves the clock to the inquiry's next attempt and runs the background delivery once. */
const retry = async (api: TestApp, id: string) => {
  now = (await api.deps.inquiries.get(id))!.nextAttemptAt!;
  return deliverWaiting(contactDeps(api.deps));
};

describe('the webhook channel alone', () => {
  it('POSTs the inquiry, signed, with its id as webhook-id, answers 200, and writes no outbox file', async () => {
    const receiver = track(await startWebhookReceiver(SECRET));
    const api = await startNode({ WEBHOOK_URL: receiver.url });
    const response = await api.post('/api/contact', inquiry({ name: 'Hook Visitor', locale: 'ca' }));
    expect(response.status).toBe(200);
    const stored = await newest(api);
    expect(receiver.events).toEqual([
      {
        id: stored.id,
        timestamp: Math.floor(now / 1000),
        payload: {
          type: 'inquiry.received',
          timestamp: new Date(stored.createdAt).toISOString(),
          data: {
            id: stored.id,
            createdAt: new Date(stored.createdAt).toISOString(),
            name: 'Hook Visitor',
            email: 'ana@example.com',
            message: stored.message,
            locale: 'ca',
            topic: null,
            channel: 'web',
            clientId: null,
            spamReasons: [],
            possibleSpam: false,
            releasedAt: null,
          },
        },
      },
    ]);
    expect(stored).toMatchObject({ status: 'sent', webhookAt: now, messageId: null });
    await expect(readdir(join(api.dir, 'outbox'))).rejects.toThrow(/ENOENT/);
  });

  it('answers 502 while the endpoint answers 500, then delivers it once, as the same webhook-id with a fresh signature, when it recovers', async () => {
    const receiver = track(await startWebhookReceiver(SECRET, 'fail'));
    const api = await startNode({ WEBHOOK_URL: receiver.url });
    const response = await api.post('/api/contact', inquiry());
    expect(response.status).toBe(502);
    const failed = await newest(api);
    expect(failed).toMatchObject({ status: 'failed', lastError: 'webhook: HTTP 500' });
    receiver.mode = 'ok';
    expect(await retry(api, failed.id)).toBe(1);
    expect(receiver.events.map((e) => [e.id, e.timestamp])).toEqual([[failed.id, Math.floor(now / 1000)]]);
    expect(receiver.requests.map((r) => [r.id, r.verified])).toEqual([
      [failed.id, true],
      [failed.id, true],
    ]);
  });

  it('refuses to follow a redirect, naming where it led', async () => {
    const receiver = track(await startWebhookReceiver(SECRET, 'redirect'));
    const api = await startNode({ WEBHOOK_URL: receiver.url });
    expect((await api.post('/api/contact', inquiry())).status).toBe(502);
    expect((await newest(api)).lastError).toBe(`webhook: HTTP 302 (redirects are not followed: set WEBHOOK_URL to ${receiver.url}/moved)`);
    expect(receiver.requests).toHaveLength(1);
  });

  it('reads no more than it needs of a huge answer, and counts the 2xx', async () => {
    const receiver = track(await startWebhookReceiver(SECRET, 'huge'));
    const api = await startNode({ WEBHOOK_URL: receiver.url });
    expect((await api.post('/api/contact', inquiry())).status).toBe(200);
    expect(receiver.events).toHaveLength(1);
  });

  it('gives up on an endpoint that never answers after 10 s, and the retry after a restart of Portico delivers it once', async () => {
    const receiver = track(await startWebhookReceiver(SECRET, 'hang'));
    // One data folder for both runs of Portico.
    const dir = await mkdtemp(join(tmpdir(), 'portico-webhook-restart-'));
    track({ close: () => rm(dir, { recursive: true, force: true }) });
    const first = await startNode({ WEBHOOK_URL: receiver.url }, dir);
    const started = Date.now();
    expect((await first.post('/api/contact', inquiry())).status).toBe(502);
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
    const failed = await newest(first);
    expect(failed.lastError).toBe('webhook: no answer within 10 s');
    await first.close();
    opened.splice(opened.indexOf(first), 1);

    receiver.mode = 'ok';
    const second = await startNode({ WEBHOOK_URL: receiver.url }, dir);
    expect(await retry(second, failed.id)).toBe(1);
    expect(receiver.events.map((e) => e.id)).toEqual([failed.id]);
    expect(await second.deps.inquiries.get(failed.id)).toMatchObject({ status: 'sent', attempts: 2 });
  }, 30_000);
});

describe('the webhook beside e-mail', () => {
  let smtp: TestSmtpServer;

  it('answers 200 once the e-mail is accepted though the webhook failed, then retries only the webhook', async () => {
    smtp = track(await startSmtpServer());
    const receiver = track(await startWebhookReceiver(SECRET, 'fail'));
    const api = await startNode({ SMTP_URL: smtp.url, WEBHOOK_URL: receiver.url });
    expect((await api.post('/api/contact', inquiry())).status).toBe(200);
    const partial = await newest(api);
    expect(partial).toMatchObject({ status: 'failed', messageId: expect.stringMatching(/^</), webhookAt: null, lastError: 'webhook: HTTP 500' });
    expect(partial.nextAttemptAt).not.toBeNull();
    receiver.mode = 'ok';
    expect(await retry(api, partial.id)).toBe(1);
    expect(smtp.messages).toHaveLength(1);
    expect(receiver.events.map((e) => e.id)).toEqual([partial.id]);
    expect(await api.deps.inquiries.get(partial.id)).toMatchObject({ status: 'sent', webhookAt: now });
  });

  it('answers 502 only when neither channel took it', async () => {
    smtp = track(await startSmtpServer('reject-mail'));
    const receiver = track(await startWebhookReceiver(SECRET, 'fail'));
    const api = await startNode({ SMTP_URL: smtp.url, WEBHOOK_URL: receiver.url });
    expect((await api.post('/api/contact', inquiry())).status).toBe(502);
    expect((await newest(api)).lastError).toMatch(/^EENVELOPE .*451.*; webhook: HTTP 500$/);
  });
});
