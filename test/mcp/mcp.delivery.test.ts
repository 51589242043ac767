// contact_service runs the /api/contact path: a refused e-mail is a tool error, kept for resend; Idempotency-Key holds.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort, startApp, type TestApp } from '../support/app.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

const ARGS = { name: 'Ana', email: 'ana@example.com', message: 'A demo, please.', privacy: true };

describe('contact_service delivery', () => {
  let smtp: TestSmtpServer;
  let api: TestApp;
  const connect = async (headers: Record<string, string> = {}) => {
    const client = new Client({ name: 'delivery-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { requestInit: { headers } }));
    return client;
  };
  beforeAll(async () => {
    smtp = await startSmtpServer();
    api = await startApp({ SMTP_URL: smtp.url, RATE_LIMITS: 'off' }, { port: await freePort() });
  });
  afterAll(async () => {
    await api.close();
    await smtp.close();
  });
  beforeEach(() => {
    smtp.mode = 'accept';
    smtp.messages.length = 0;
  });

  it('answers a refused e-mail with isError, and keeps the inquiry as failed for the team', async () => {
    smtp.mode = 'reject-rcpt';
    const client = await connect();
    const result = await client.callTool({ name: 'contact_service', arguments: { ...ARGS, email: 'refused@example.com' } });
    await client.close();
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ ok: false, error: 'delivery_failed' });
    const [stored] = await api.deps.inquiries.list({ limit: 1 });
    expect(stored).toMatchObject({ email: 'refused@example.com', channel: 'mcp', status: 'failed' });
  });

  it('sends once for two calls carrying the same Idempotency-Key', async () => {
    const client = await connect({ 'idempotency-key': 'mcp-call-1' });
    const first = await client.callTool({ name: 'contact_service', arguments: ARGS });
    const second = await client.callTool({ name: 'contact_service', arguments: ARGS });
    await client.close();
    expect([first.isError, second.isError]).toEqual([undefined, undefined]);
    expect([first.structuredContent, second.structuredContent]).toEqual([{ ok: true }, { ok: true }]);
    expect(smtp.messages).toHaveLength(1);
  });

  it('keeps the name and the e-mail without the white space around them, as /api/contact does', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'contact_service', arguments: { ...ARGS, name: '  Ana Spaced  ', email: ' spaced@example.com ' } });
    await client.close();
    expect(result.structuredContent).toEqual({ ok: true });
    const [stored] = await api.deps.inquiries.list({ limit: 1 });
    expect(stored).toMatchObject({ name: 'Ana Spaced', email: 'spaced@example.com', channel: 'mcp' });
  });
});
