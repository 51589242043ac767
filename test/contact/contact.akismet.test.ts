// AKISMET_KEY: every inquiry nothing else holds is put to Akismet's comment-check (here a loopback server
// that speaks its protocol); a spam verdict keeps it as spam, and Akismet's outage never blocks an inquiry.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort, inquiry, startApp, type TestApp } from '../support/app.js';
import { startAkismet, type TestAkismet } from '../support/akismet-server.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

describe('Akismet screening', () => {
  let akismet: TestAkismet;
  let smtp: TestSmtpServer;
  let api: TestApp;
  const headers = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0', referer: 'https://www.portico.example/contact' };
  const newest = async () => (await api.deps.inquiries.list({ limit: 1 }))[0]!;

  beforeAll(async () => {
    akismet = await startAkismet();
    smtp = await startSmtpServer();
    api = await startApp(
      { SMTP_URL: smtp.url, RATE_LIMITS: 'off', AKISMET_KEY: akismet.key, AKISMET_URL: akismet.url, SPAM_BLOCKED_TERMS: 'casino' },
      { port: await freePort(), akismetTimeoutMs: 300 },
    );
  });
  afterAll(async () => {
    await api.close();
    await smtp.close();
    await akismet.close();
  });
  beforeEach(() => {
    akismet.calls.length = 0;
    smtp.messages.length = 0;
  });

  it('asks comment-check with the inquiry and what the request said of its sender, as a contact-form comment on this site', async () => {
    expect((await api.post('/api/contact', inquiry({ name: 'Ana García', email: 'ana@example.com', message: 'Asked of Akismet.', locale: 'ca' }), headers)).status).toBe(200);
    expect(akismet.calls).toEqual([
      {
        api_key: akismet.key,
        blog: api.url,
        user_ip: '127.0.0.1',
        user_agent: headers['user-agent'],
        referrer: headers.referer,
        comment_type: 'contact-form',
        comment_author: 'Ana García',
        comment_author_email: 'ana@example.com',
        comment_content: 'Asked of Akismet.',
        blog_lang: 'ca',
        blog_charset: 'UTF-8',
        // Outside production, so that tests do not teach Akismet's filter.
        is_test: '1',
      },
    ]);
    expect(await newest()).toMatchObject({ status: 'sent', spamReasons: [] });
    expect(smtp.messages).toHaveLength(1);
  });

  it('keeps an inquiry Akismet calls spam, answered 200 and not delivered, with the reason akismet', async () => {
    const response = await api.post('/api/contact', inquiry({ email: 'akismet-guaranteed-spam@example.com', message: 'Buy now.' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(await newest()).toMatchObject({ status: 'spam', spamReasons: ['akismet'], attempts: 0 });
    expect(smtp.messages).toHaveLength(0);
  });

  it('asks for the contact_service tool too', async () => {
    const client = new Client({ name: 'akismet-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`)));
    const result = await client.callTool({ name: 'contact_service', arguments: { name: 'Bot', email: 'bot@example.com', message: 'blatant spam, through MCP', privacy: true } });
    await client.close();
    expect(result.structuredContent).toEqual({ ok: true });
    expect(akismet.calls.map((call) => call.comment_content)).toEqual(['blatant spam, through MCP']);
    expect(await newest()).toMatchObject({ channel: 'mcp', status: 'spam', spamReasons: ['akismet'] });
  });

  it.each([
    ['answers 500', 'akismet: 500'],
    ['answers invalid', 'akismet: invalid'],
    ['does not answer in time', 'akismet: stall'],
  ])('delivers the inquiry unjudged when Akismet %s, logging akismet-unavailable', async (_, message) => {
    const logged = api.logs.length;
    const started = performance.now();
    expect((await api.post('/api/contact', inquiry({ email: 'unjudged@example.com', message }))).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await newest()).toMatchObject({ status: 'sent', spamReasons: [] });
    expect(smtp.messages).toHaveLength(1);
    const warning = api.logs.slice(logged).find((line) => line.includes('akismet-unavailable'));
    expect(warning).toBeDefined();
    expect(warning).not.toContain(akismet.key);
  });

  it('does not ask about an inquiry a local reason already holds', async () => {
    expect((await api.post('/api/contact', inquiry({ email: 'gambler@example.com', message: 'Casino night!' }))).status).toBe(200);
    expect(akismet.calls).toEqual([]);
    expect(await newest()).toMatchObject({ status: 'spam', spamReasons: ['blocked-term'] });
  });
});
