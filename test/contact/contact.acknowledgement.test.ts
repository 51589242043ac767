// MAIL_ACKNOWLEDGE: a short note in the submitter's language, only to submitters who passed Turnstile or
// came with a token, at most one a day per address, so that Portico never mails strangers.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearerFor, freePort, inquiry, startApp, type TestApp } from '../support/app.js';
import { startSiteverify, type TestSiteverify } from '../support/siteverify-server.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

const DAY = 86_400_000;

describe('acknowledgements to submitters', () => {
  let siteverify: TestSiteverify;
  let smtp: TestSmtpServer;
  let api: TestApp;
  let bearer: { authorization: string };
  let now = Date.parse('2026-11-25T10:00:00Z');

  beforeAll(async () => {
    siteverify = await startSiteverify();
    smtp = await startSmtpServer();
    api = await startApp(
      {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Portico Sales <web@portico.example>',
        MAIL_TO: 'Sales team <sales@portico.example>',
        MAIL_TO_DEMO: 'Demo team <demos@portico.example>',
        MAIL_ACKNOWLEDGE: 'on',
        TURNSTILE_SECRET_KEY: siteverify.secret,
        TURNSTILE_SITE_KEY: 'site-key',
        TURNSTILE_VERIFY_URL: siteverify.url,
        RATE_LIMITS: 'off',
      },
      { clock: { now: () => now }, port: await freePort() },
    );
    bearer = await bearerFor(api, 'contact:write');
  });
  afterAll(async () => {
    await api.close();
    await smtp.close();
    await siteverify.close();
  });
  beforeEach(() => void (smtp.messages.length = 0));

  /** The messages that reached the relay for `address`, once the note has had time to go. */
  const mailTo = async (address: string, count: number) => {
    await expect.poll(() => smtp.messages.length).toBeGreaterThanOrEqual(count);
    await new Promise((resolve) => setTimeout(resolve, 100));
    return smtp.messages.filter((m) => m.to && !Array.isArray(m.to) && m.to.value[0]?.address === address);
  };

  it('thanks a visitor who passed Turnstile, in their language, with replies going to the team', async () => {
    const response = await api.post('/api/contact', inquiry({ name: 'Marta', email: 'marta@example.com', locale: 'ca', turnstileToken: 'pass-1@127.0.0.1' }));
    expect(response.status).toBe(200);
    const [note] = await mailTo('marta@example.com', 2);
    expect(note?.subject).toBe('Hem rebut la teva consulta');
    expect(note?.text).toBe('Hola, Marta:\n\nHem rebut la teva consulta i et respondrem aviat.\n\nPortico Sales\n');
    expect(note?.replyTo?.value).toEqual([{ name: 'Sales team', address: 'sales@portico.example' }]);
    expect(note?.headers.get('auto-submitted')).toBe('auto-replied');
    expect(await mailTo('sales@portico.example', 2)).toHaveLength(1);
  });

  it('thanks a submitter whose client sent a Bearer token, and keeps the try with the inquiry', async () => {
    expect((await api.post('/api/contact', inquiry({ email: 'via-crm@example.com', locale: 'en' }), bearer)).status).toBe(200);
    const [note] = await mailTo('via-crm@example.com', 2);
    expect(note?.subject).toBe('We have received your inquiry');
    const [stored] = await api.deps.inquiries.list({ email: 'via-crm@example.com', limit: 1 });
    await expect
      .poll(async () => (await api.deps.inquiries.attempts(stored!.id)).map((a) => [a.channel, a.ok, a.result?.slice(0, 3)]))
      .toEqual([
        ['mail', true, '250'],
        ['acknowledgement', true, '250'],
      ]);
  });

  it("sends the note's replies to the mailbox of the inquiry's topic", async () => {
    expect((await api.post('/api/contact', inquiry({ email: 'topical@example.com', locale: 'en', topic: 'demo' }), bearer)).status).toBe(200);
    const [note] = await mailTo('topical@example.com', 2);
    expect(note?.replyTo?.value).toEqual([{ name: 'Demo team', address: 'demos@portico.example' }]);
    expect(note?.headers.get('x-portico-topic')).toBe('demo');
  });

  it('writes to one address at most once a day, whatever it sends', async () => {
    for (const token of ['pass-2@127.0.0.1', 'pass-3@127.0.0.1']) {
      expect((await api.post('/api/contact', inquiry({ email: 'eager@example.com', message: `A question, ${token}`, turnstileToken: token }))).status).toBe(200);
    }
    expect(await mailTo('eager@example.com', 3)).toHaveLength(1);
    now += DAY;
    smtp.messages.length = 0;
    expect((await api.post('/api/contact', inquiry({ email: 'eager@example.com', turnstileToken: 'pass-4@127.0.0.1' }))).status).toBe(200);
    expect(await mailTo('eager@example.com', 2)).toHaveLength(1);
  });

  it('never writes to the address of an anonymous MCP call or a filled honeypot', async () => {
    const call = await fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'contact_service', arguments: { name: 'Agent', email: 'stranger@example.com', message: 'Hello from an agent', locale: 'en', privacy: true } },
      }),
    });
    expect(call.status).toBe(200);
    expect((await api.post('/api/contact', inquiry({ email: 'bot-victim@example.com', website: 'http://spam.example', turnstileToken: 'pass-5' }))).status).toBe(200);
    expect(await mailTo('sales@portico.example', 1)).toHaveLength(1);
    expect(smtp.messages.map((m) => (Array.isArray(m.to) ? '' : m.to?.value[0]?.address))).toEqual(['sales@portico.example']);
  });
});

describe('acknowledgements when MAIL_ACKNOWLEDGE is off (the default)', () => {
  it('never writes to the submitter', async () => {
    const smtp = await startSmtpServer();
    const siteverify = await startSiteverify();
    const api = await startApp({ SMTP_URL: smtp.url, TURNSTILE_SECRET_KEY: siteverify.secret, TURNSTILE_SITE_KEY: 'site-key', TURNSTILE_VERIFY_URL: siteverify.url, RATE_LIMITS: 'off' });
    try {
      expect((await api.post('/api/contact', inquiry({ email: 'quiet@example.com', turnstileToken: 'pass-1' }))).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(smtp.messages).toHaveLength(1);
    } finally {
      await api.close();
      await smtp.close();
      await siteverify.close();
    }
  });
});
