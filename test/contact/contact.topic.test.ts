// What an inquiry is about: `topic` routes it to the team's mailbox for that topic (MAIL_TO_SALES,
// MAIL_TO_DEMO, MAIL_TO_SUPPORT, else MAIL_TO), is named in the e-mail's subject, body and a header a
// mail filter can match in any locale, and travels in the webhook; absent, the inquiry is general.
import { randomBytes } from 'node:crypto';
import type { AddressObject } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerFor, freePort, inquiry, startApp, type TestApp } from '../support/app.js';
import { callContactService } from '../support/mcp-call.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

describe('an inquiry with a topic', () => {
  let smtp: TestSmtpServer;
  let receiver: WebhookReceiver;
  let api: TestApp;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    receiver = await startWebhookReceiver(SECRET);
    api = await startApp(
      {
        SMTP_URL: smtp.url,
        WEBHOOK_URL: receiver.url,
        WEBHOOK_SECRET: SECRET,
        RATE_LIMITS: 'off',
        MAIL_TO: 'Team <team@portico.example>',
        MAIL_TO_DEMO: 'Demos <demos@portico.example>',
        MAIL_TO_SALES: 'sales@portico.example',
      },
      { port: await freePort() },
    );
  });
  afterAll(async () => {
    await api.close();
    await receiver.close();
    await smtp.close();
  });

  const to = (index: number) => (smtp.messages[index]!.to as AddressObject).value.map((address) => address.address);
  const send = async (fields: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const response = await api.post('/api/contact', inquiry({ message: `About ${JSON.stringify(fields)}, ${randomBytes(4).toString('hex')}.`, ...fields }), headers);
    return { status: response.status, body: await response.json() };
  };

  it('on demo reaches MAIL_TO_DEMO, with the topic in the subject, the body, X-Portico-Topic and the webhook', async () => {
    const before = smtp.messages.length;
    expect(await send({ topic: 'demo', locale: 'es' })).toEqual({ status: 200, body: { ok: true } });
    const mail = smtp.messages[before]!;
    expect(to(before)).toEqual(['demos@portico.example']);
    expect(mail.subject).toBe('[demo] Nueva consulta de Ana García [es]');
    expect(mail.text).toContain('\nMotivo: Demostración\n');
    expect(mail.headers.get('x-portico-topic')).toBe('demo');
    const event = receiver.events.at(-1)!;
    expect(event.payload.data).toMatchObject({ name: 'Ana García', topic: 'demo' });
    expect((await api.deps.inquiries.get(event.id))!.topic).toBe('demo');
  });

  it('on sales reaches MAIL_TO_SALES, and on support, which has no mailbox of its own, MAIL_TO', async () => {
    const before = smtp.messages.length;
    expect((await send({ topic: 'sales', locale: 'en' })).status).toBe(200);
    expect((await send({ topic: 'support', locale: 'en' })).status).toBe(200);
    expect([to(before), to(before + 1)]).toEqual([['sales@portico.example'], ['team@portico.example']]);
    expect(smtp.messages[before + 1]!.subject).toBe('[support] New inquiry from Ana García [en]');
    expect(smtp.messages[before + 1]!.text).toContain('\nTopic: Support\n');
  });

  it('is general without one: MAIL_TO, no tag in the subject, no X-Portico-Topic, and null in the webhook', async () => {
    const before = smtp.messages.length;
    expect((await send({ locale: 'en' })).status).toBe(200);
    const mail = smtp.messages[before]!;
    expect(to(before)).toEqual(['team@portico.example']);
    expect(mail.subject).toBe('New inquiry from Ana García [en]');
    expect(mail.text).toContain('\nTopic: General inquiry\n');
    expect(mail.headers.has('x-portico-topic')).toBe(false);
    expect(receiver.events.at(-1)!.payload.data).toMatchObject({ topic: null });
  });

  it('refuses a topic it does not know with a 400 that names topic, and stores nothing', async () => {
    const before = (await api.deps.inquiries.list({ limit: 1000 })).length;
    for (const topic of ['billing', 'Demo', '', 7, null]) {
      const { status, body } = await send({ topic });
      expect(status).toBe(400);
      expect(body).toEqual({ ok: false, error: 'invalid_request', error_description: 'topic must be one of sales, demo, support' });
    }
    expect(await api.deps.inquiries.list({ limit: 1000 })).toHaveLength(before);
  });

  it('comes through contact_service and a Bearer client alike', async () => {
    const before = smtp.messages.length;
    const result = await callContactService(api.url, inquiry({ message: 'A demo for 12 buildings, through an agent.', topic: 'demo' }));
    expect(result.structuredContent).toEqual({ ok: true });
    expect((await send({ topic: 'sales' }, await bearerFor(api, 'contact:write'))).status).toBe(200);
    expect([to(before), to(before + 1)]).toEqual([['demos@portico.example'], ['sales@portico.example']]);
  });

  it("is part of what an Idempotency-Key stands for: the same key with another topic is another request's", async () => {
    const key = { 'idempotency-key': randomBytes(8).toString('hex') };
    const fields = { message: 'One request, one topic.', topic: 'support' };
    expect((await send(fields, key)).status).toBe(200);
    expect((await send(fields, key)).status).toBe(200);
    const other = await send({ ...fields, topic: 'sales' }, key);
    expect(other).toMatchObject({ status: 422, body: { error: 'idempotency_key_reused' } });
  });
});
