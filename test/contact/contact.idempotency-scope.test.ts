// D14: an Idempotency-Key belongs to its sender (the OAuth client; else the address and the door), so one
// sender can neither claim another's key (the victim's inquiry refused 422, a lost lead) nor learn it exists.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearerFor, freePort, inquiry, startApp, type TestApp } from '../support/app.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

describe('Idempotency-Key scoped to its sender', () => {
  let smtp: TestSmtpServer;
  let api: TestApp;
  let bearer: { authorization: string };
  beforeAll(async () => {
    smtp = await startSmtpServer();
    api = await startApp({ SMTP_URL: smtp.url, RATE_LIMITS: 'off', TRUST_PROXY: 'loopback' }, { port: await freePort() });
    bearer = await bearerFor(api, 'contact:write');
  });
  afterAll(async () => {
    await api.close();
    await smtp.close();
  });
  beforeEach(() => void (smtp.messages.length = 0));

  const post = (message: string, key: string, headers: Record<string, string>) => api.post('/api/contact', inquiry({ message }), { 'idempotency-key': key, ...headers });

  it('delivers a client inquiry whose key an anonymous caller claimed first', async () => {
    expect((await post('squatting', 'lead-7', { 'x-forwarded-for': '203.0.113.66' })).status).toBe(200);
    const real = await post('the real lead', 'lead-7', bearer);
    expect(real.status).toBe(200);
    expect(smtp.messages.map((m) => m.text?.includes('the real lead'))).toContain(true);
  });

  it('tells an anonymous caller nothing about a key another sender used', async () => {
    expect((await post('client lead', 'lead-8', bearer)).status).toBe(200);
    // Neither 422 (a different body) nor a replay (the same body): a new inquiry of its own, which, with the
    // client's message, is that inquiry's duplicate (D20) and reaches the team once.
    expect((await post('probe', 'lead-8', { 'x-forwarded-for': '203.0.113.67' })).status).toBe(200);
    expect((await post('client lead', 'lead-8', { 'x-forwarded-for': '203.0.113.68' })).status).toBe(200);
    const [copy, probe, lead] = await api.deps.inquiries.list({ limit: 3 });
    expect([lead?.status, probe?.status, copy?.status]).toEqual(['sent', 'sent', 'duplicate']);
    expect(copy?.duplicateOf).toBe(lead?.id);
    expect(smtp.messages).toHaveLength(2);
  });

  it('keeps anonymous keys apart by address, and by door (web, mcp)', async () => {
    expect((await post('from A', 'lead-9', { 'x-forwarded-for': '198.51.100.31' })).status).toBe(200);
    expect((await post('from B', 'lead-9', { 'x-forwarded-for': '198.51.100.32' })).status).toBe(200);
    const call = await api.post(
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'contact_service', arguments: { ...inquiry({ message: 'through the tool' }) }, _meta: META } },
      {
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'contact_service',
        'idempotency-key': 'lead-9',
        'x-forwarded-for': '198.51.100.31',
      },
    );
    expect((await call.json()).result.structuredContent).toEqual({ ok: true });
    expect(smtp.messages).toHaveLength(3);
  });

  it('still replays, and still refuses a different body, for the same sender', async () => {
    const sender = { 'x-forwarded-for': '198.51.100.33' };
    expect((await post('once', 'lead-10', sender)).status).toBe(200);
    expect((await post('once', 'lead-10', sender)).status).toBe(200);
    expect((await post('twice', 'lead-10', sender)).status).toBe(422);
    expect(smtp.messages).toHaveLength(1);
  });
});
