// The screening settings as an operator changes them (SPAM_HOLD, SPAM_SCREEN, DUPLICATE_WINDOW), and how a
// screened inquiry meets the rest of the contact path: Bearer clients, Idempotency-Key retries, the webhook.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { bearerFor, inquiry, startApp, type TestApp } from '../support/app.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

const opened: { close(): Promise<unknown> }[] = [];
const track = <T extends { close(): Promise<unknown> }>(thing: T): T => (opened.push(thing), thing);
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});

async function node(env: Record<string, string>): Promise<{ api: TestApp; smtp: TestSmtpServer }> {
  const smtp = track(await startSmtpServer());
  const api = track(await startApp({ SMTP_URL: smtp.url, RATE_LIMITS: 'off', ...env }));
  return { api, smtp };
}
const newest = async (api: TestApp) => (await api.deps.inquiries.list({ limit: 1 }))[0]!;
const LINKS = Array.from({ length: 12 }, (_, i) => `https://offer-${i}.example`).join(' ');

describe('screening settings', () => {
  it('holds a weak reason named in SPAM_HOLD, and marks a strong one left out of it', async () => {
    const { api, smtp } = await node({ SPAM_HOLD: 'disposable-address,honeypot' });
    expect((await api.post('/api/contact', inquiry({ email: 'x@mailinator.com' }))).status).toBe(200);
    expect(await newest(api)).toMatchObject({ status: 'spam', spamReasons: ['disposable-address'] });
    expect((await api.post('/api/contact', inquiry({ message: `Offers: ${LINKS}` }))).status).toBe(200);
    expect(await newest(api)).toMatchObject({ status: 'sent', spamReasons: ['links'] });
    expect(smtp.messages.map((m) => [m.subject, m.headers.get('x-portico-spam-reasons')])).toEqual([['[Posible spam] Nueva consulta de Ana García [es]', 'links']]);
  });

  it('with SPAM_SCREEN=off delivers what screening would hold, and still keeps a filled honeypot', async () => {
    const { api, smtp } = await node({ SPAM_SCREEN: 'off', SPAM_BLOCKED_TERMS: 'casino' });
    expect((await api.post('/api/contact', inquiry({ email: 'x@mailinator.com', message: `Casino ${LINKS}` }))).status).toBe(200);
    expect(await newest(api)).toMatchObject({ status: 'sent', spamReasons: [] });
    expect((await api.post('/api/contact', inquiry({ message: 'Bot', website: 'http://bot.example' }))).status).toBe(200);
    expect(await newest(api)).toMatchObject({ status: 'spam', spamReasons: ['honeypot'] });
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.headers.has('x-portico-spam-reasons')).toBe(false);
  });

  it('with SPAM_HOLD=none delivers a filled honeypot, marked with its reason', async () => {
    const { api, smtp } = await node({ SPAM_HOLD: 'none' });
    expect((await api.post('/api/contact', inquiry({ message: 'Bot', website: 'http://bot.example' }))).status).toBe(200);
    expect(await newest(api)).toMatchObject({ status: 'sent', spamReasons: ['honeypot'] });
    expect(smtp.messages.map((m) => [m.subject, m.headers.get('x-portico-spam-reasons')])).toEqual([['[Posible spam] Nueva consulta de Ana García [es]', 'honeypot']]);
  });

  it('with SPAM_SCREEN=off still keeps a duplicate back: DUPLICATE_WINDOW governs duplicates', async () => {
    const { api, smtp } = await node({ SPAM_SCREEN: 'off' });
    for (let i = 0; i < 2; i++) expect((await api.post('/api/contact', inquiry())).status).toBe(200);
    expect(await newest(api)).toMatchObject({ status: 'duplicate' });
    expect(smtp.messages).toHaveLength(1);
  });

  it('with DUPLICATE_WINDOW=0s delivers the same inquiry every time', async () => {
    const { api, smtp } = await node({ DUPLICATE_WINDOW: '0s' });
    for (let i = 0; i < 2; i++) expect((await api.post('/api/contact', inquiry())).status).toBe(200);
    expect(smtp.messages).toHaveLength(2);
  });

  it('counts an inquiry as new once the window has passed since the last one received like it', async () => {
    let now = Date.parse('2026-11-25T10:00:00Z');
    const smtp = track(await startSmtpServer());
    const api = track(await startApp({ SMTP_URL: smtp.url, RATE_LIMITS: 'off', DUPLICATE_WINDOW: '10m' }, { clock: { now: () => now } }));
    expect((await api.post('/api/contact', inquiry())).status).toBe(200);
    now += 9 * 60_000;
    expect((await api.post('/api/contact', inquiry())).status).toBe(200);
    expect(await newest(api)).toMatchObject({ status: 'duplicate' });
    now += 11 * 60_000;
    expect((await api.post('/api/contact', inquiry())).status).toBe(200);
    expect(await newest(api)).toMatchObject({ status: 'sent', duplicateOf: null });
    expect(smtp.messages).toHaveLength(2);
  });

  it('screens an inquiry with a Bearer token as any other: a token proves a client, not its content', async () => {
    const { api, smtp } = await node({ SPAM_BLOCKED_TERMS: 'casino' });
    const bearer = await bearerFor(api, 'contact:write');
    expect((await api.post('/api/contact', inquiry({ message: 'Casino partnership?' }), bearer)).status).toBe(200);
    expect(await newest(api)).toMatchObject({ channel: 'api', status: 'spam', spamReasons: ['blocked-term'] });
    expect((await api.post('/api/contact', inquiry({ email: 'x@mailinator.com' }), bearer)).status).toBe(200);
    expect(await newest(api)).toMatchObject({ channel: 'api', status: 'sent', spamReasons: ['disposable-address'] });
    expect(smtp.messages).toHaveLength(1);
  });

  it('answers a retry of a held or duplicate inquiry as the first was, with its Idempotency-Key, sending nothing', async () => {
    const { api, smtp } = await node({});
    const held = inquiry({ message: `Offers: ${LINKS}` });
    for (let i = 0; i < 2; i++) expect((await api.post('/api/contact', held, { 'idempotency-key': 'held-1' })).status).toBe(200);
    expect((await api.deps.inquiries.list({ status: 'spam', limit: 10 })).length).toBe(1);

    expect((await api.post('/api/contact', inquiry({ message: 'Once.' }))).status).toBe(200);
    const again = inquiry({ message: 'once. ' });
    for (let i = 0; i < 2; i++) expect((await api.post('/api/contact', again, { 'idempotency-key': 'dup-1' })).status).toBe(200);
    expect((await api.deps.inquiries.list({ status: 'duplicate', limit: 10 })).length).toBe(1);
    expect(smtp.messages).toHaveLength(1);
  });

  it("carries the reasons in the webhook's event, and says when the inquiry is delivered marked", async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const receiver = track(await startWebhookReceiver(secret));
    const api = track(await startApp({ RATE_LIMITS: 'off', WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: secret }));
    expect((await api.post('/api/contact', inquiry({ email: 'x@mailinator.com' }))).status).toBe(200);
    expect((await api.post('/api/contact', inquiry({ message: 'Clean.' }))).status).toBe(200);
    const data = receiver.events.map((event) => (event.payload as { data: Record<string, unknown> }).data);
    expect(data.map(({ spamReasons, possibleSpam, releasedAt }) => ({ spamReasons, possibleSpam, releasedAt }))).toEqual([
      { spamReasons: ['disposable-address'], possibleSpam: true, releasedAt: null },
      { spamReasons: [], possibleSpam: false, releasedAt: null },
    ]);
  });
});
