// POST /api/contact delivers the inquiry by SMTP, and keeps it when the mail server fails.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inquiry, startApp, type TestApp } from '../support/app.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

describe('POST /api/contact delivery', () => {
  let smtp: TestSmtpServer;
  let api: TestApp;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    api = await startApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Portico <no-reply@portico.example>', MAIL_TO: 'Sales <sales@portico.example>', RATE_LIMITS: 'off' });
  });
  afterAll(async () => {
    await api.close();
    await smtp.close();
  });
  afterEach(() => {
    smtp.mode = 'accept';
    smtp.messages.length = 0;
  });

  it('answers 200 {ok:true} and e-mails the team from the fixed sender with the submitter as Reply-To', async () => {
    const response = await api.post('/api/contact', inquiry({ locale: 'en' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    const [mail] = smtp.messages;
    expect(mail?.from?.value).toEqual([{ name: 'Portico', address: 'no-reply@portico.example' }]);
    expect(mail?.to).toMatchObject({ value: [{ name: 'Sales', address: 'sales@portico.example' }] });
    expect(mail?.replyTo?.value).toEqual([{ name: 'Ana García', address: 'ana@example.com' }]);
    expect(mail?.headers.get('content-language')).toBe('en');
    expect(mail?.text).toContain('We manage 40 buildings and would like a demo.');
  });

  it('keeps the message intact in any script, and defaults the locale to es', async () => {
    const message = 'Здравствуйте! 你好 — مرحبا 👋🏽\nSegunda línea: àèìòù çñ';
    const response = await api.post('/api/contact', inquiry({ name: 'Иван Петров', message }));
    expect(response.status).toBe(200);
    const [mail] = smtp.messages;
    expect(mail?.text).toContain(message);
    expect(mail?.subject).toContain('Иван Петров');
    expect(mail?.headers.get('content-language')).toBe('es');
    expect(mail?.replyTo?.value[0]?.name).toBe('Иван Петров');
  });

  it('cannot be made to add recipients or headers through the name', async () => {
    const name = 'Eve <eve@evil.example>, "Mallory" <m@evil.example>; Bcc: x@evil.example';
    expect((await api.post('/api/contact', inquiry({ name, message: 'Who else gets this?' }))).status).toBe(200);
    const [mail] = smtp.messages;
    expect(mail?.replyTo?.value).toEqual([{ name, address: 'ana@example.com' }]);
    expect(mail?.to).toMatchObject({ value: [{ address: 'sales@portico.example' }] });
    expect(mail?.bcc).toBeUndefined();
    expect(mail?.cc).toBeUndefined();
  });

  it('accepts an internationalized domain and replies to it', async () => {
    expect((await api.post('/api/contact', inquiry({ email: 'jon@bücher.example' }))).status).toBe(200);
    expect(smtp.messages[0]?.replyTo?.value[0]?.address).toMatch(/^jon@(bücher|xn--bcher-kva)\.example$/);
  });

  it('stores every delivered inquiry with status sent and its Message-ID', async () => {
    await api.post('/api/contact', inquiry({ email: 'stored@example.com' }));
    const [stored] = await api.deps.inquiries.list({ limit: 1 });
    expect(stored).toMatchObject({ email: 'stored@example.com', status: 'sent', attempts: 1, channel: 'web' });
    expect(stored?.messageId).toBe(smtp.messages[0]?.messageId);
  });

  it('answers 502 when the server refuses the recipient, and keeps the inquiry as failed', async () => {
    smtp.mode = 'reject-rcpt';
    const response = await api.post('/api/contact', inquiry({ email: 'refused@example.com' }));
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: 'delivery_failed', ok: false });
    const [stored] = await api.deps.inquiries.list({ limit: 1 });
    expect(stored).toMatchObject({ email: 'refused@example.com', status: 'failed' });
    expect(stored?.lastError).toContain('550');
  });

  it('answers 502 when the server drops the connection mid-transaction, and keeps the inquiry', async () => {
    smtp.mode = 'drop';
    const response = await api.post('/api/contact', inquiry({ email: 'dropped@example.com' }));
    expect(response.status).toBe(502);
    const [stored] = await api.deps.inquiries.list({ limit: 1 });
    expect(stored).toMatchObject({ email: 'dropped@example.com', status: 'failed' });
  });

  it('recovers by itself: the next inquiry after a failure is delivered', async () => {
    smtp.mode = 'drop';
    expect((await api.post('/api/contact', inquiry({ email: 'before@example.com' }))).status).toBe(502);
    smtp.mode = 'accept';
    expect((await api.post('/api/contact', inquiry({ email: 'after@example.com' }))).status).toBe(200);
    expect(smtp.messages.map((m) => m.replyTo?.value[0]?.address)).toEqual(['after@example.com']);
  });
});
