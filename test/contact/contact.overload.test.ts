// D19: a node works on a bounded number of inquiries at once, whichever door they come through, with a bounded
// line behind them; beyond the line, or after a wait too long, a newcomer is refused (503 server_busy with
// Retry-After, or the tool's error with the wait), nothing stored, while everything else is served. The
// outside checks (Turnstile, Akismet) wait outside that line: stalled, they refuse no Bearer or MCP inquiry (D23).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerFor, freePort, inquiry, startApp, type TestApp } from '../support/app.js';
import type { AdmissionLimits } from '../../src/modules/contact/admission.js';
import { startAkismet, type TestAkismet } from '../support/akismet-server.js';
import { startSiteverify, type TestSiteverify } from '../support/siteverify-server.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'contact_service' };
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** A node with these admission limits, whose relay takes 1.5 s to accept each inquiry's e-mail. */
function admittingNode(admission: AdmissionLimits) {
  let smtp: TestSmtpServer;
  let api: TestApp;
  return {
    async start() {
      smtp = await startSmtpServer('slow');
      api = await startApp({ RATE_LIMITS: 'off', SMTP_URL: smtp.url }, { admission, port: await freePort() });
      return api;
    },
    async stop() {
      await api.close();
      await smtp.close();
    },
  };
}

describe('a node at its bound of inquiries in flight, with its line full', () => {
  let api: TestApp;
  const node = admittingNode({ inFlight: 1, waiting: 1, waitMs: 5_000 });
  beforeAll(async () => void (api = await node.start()));
  afterAll(() => node.stop());

  /** Two inquiries whose e-mail the relay takes its time over: one in flight, one in line. */
  let held = 0;
  const holdBothPlaces = () => [1, 2].map(() => api.post('/api/contact', inquiry({ message: `Held ${++held}` })));

  it('answers a newcomer on /api/contact 503 server_busy with Retry-After at once, and stores nothing of it', async () => {
    const held = holdBothPlaces();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const refused = await api.post('/api/contact', inquiry({ message: 'Turned away' }));
    expect(performance.now() - started).toBeLessThan(200);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(await refused.json()).toMatchObject({ ok: false, error: 'server_busy' });
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
    expect((await api.deps.inquiries.list({ limit: 10 })).map((i) => i.message)).not.toContain('Turned away');
  });

  it('answers contact_service with the tool error server_busy and the wait, while the places are held', async () => {
    const held = holdBothPlaces();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const response = await api.post(
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'contact_service', arguments: { ...inquiry(), message: 'Turned away by the tool' }, _meta: META } },
      MCP_HEADERS,
    );
    expect(response.status).toBe(200);
    const { result } = await response.json();
    expect(result).toMatchObject({ isError: true, structuredContent: { ok: false, error: 'server_busy', retryAfterSeconds: 2 } });
    await Promise.all(held);
  });

  it('takes inquiries again once those in flight are done', async () => {
    await Promise.all(holdBothPlaces());
    expect((await api.post('/api/contact', inquiry({ message: 'Taken again' }))).status).toBe(200);
  });
});

describe('a newcomer in line', () => {
  let api: TestApp;
  const node = admittingNode({ inFlight: 1, waiting: 4, waitMs: 3_000 });
  beforeAll(async () => void (api = await node.start()));
  afterAll(() => node.stop());

  it('is served once the inquiry ahead of it is done', async () => {
    const ahead = api.post('/api/contact', inquiry({ message: 'Ahead' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const waited = await api.post('/api/contact', inquiry({ message: 'Waited for its turn' }));
    expect(waited.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThan(1_300);
    expect((await ahead).status).toBe(200);
  });
});

describe('a newcomer in line behind an inquiry that takes longer than its wait', () => {
  let api: TestApp;
  const node = admittingNode({ inFlight: 1, waiting: 4, waitMs: 1_000 });
  beforeAll(async () => void (api = await node.start()));
  afterAll(() => node.stop());

  it('is refused server_busy when its wait runs out', async () => {
    const ahead = api.post('/api/contact', inquiry({ message: 'Ahead, for 1.5 s' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const refused = await api.post('/api/contact', inquiry({ message: 'Waited too long' }));
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: 'server_busy' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect((await ahead).status).toBe(200);
    expect((await api.deps.inquiries.list({ limit: 10 })).map((i) => i.message)).not.toContain('Waited too long');
  });
});

describe('a node whose Turnstile and Akismet stall', () => {
  let siteverify: TestSiteverify;
  let akismet: TestAkismet;
  let api: TestApp;
  beforeAll(async () => {
    siteverify = await startSiteverify();
    akismet = await startAkismet();
    const env = {
      RATE_LIMITS: 'off',
      TURNSTILE_SECRET_KEY: siteverify.secret,
      TURNSTILE_SITE_KEY: 'site-key',
      TURNSTILE_VERIFY_URL: siteverify.url,
      AKISMET_KEY: akismet.key,
      AKISMET_URL: akismet.url,
    };
    api = await startApp(env, { admission: { inFlight: 2, waiting: 2, waitMs: 1_000 }, humanCheckTimeoutMs: 3_000, akismetTimeoutMs: 1_000, port: await freePort() });
  });
  afterAll(async () => {
    await api.close();
    await siteverify.close();
    await akismet.close();
  });

  it('refuses no Bearer or MCP inquiry while more browsers than the node admits wait for the stalled checks, which end in their own refusal', { timeout: 20_000 }, async () => {
    const browsers = [1, 2, 3, 4].map((i) => api.post('/api/contact', inquiry({ turnstileToken: 'stall', message: `A browser ${i}` })));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const bearer = await bearerFor(api, 'contact:write');
    for (const i of [1, 2, 3, 4]) {
      expect((await api.post('/api/contact', inquiry({ message: `A CRM ${i}, akismet: stall` }), bearer)).status).toBe(200);
      const call = { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'contact_service', arguments: { ...inquiry(), message: `An agent ${i}` }, _meta: META } };
      const answer = await api.post('/mcp', call, MCP_HEADERS);
      const body = await answer.json();
      expect(body.result, JSON.stringify(body)).toMatchObject({ structuredContent: { ok: true } });
    }
    const refusals = await Promise.all(browsers);
    expect(refusals.map((r) => r.status)).toEqual([503, 503, 503, 503]);
    expect(await refusals[0]!.json()).toMatchObject({ error: 'human_check_unavailable' });
  });
});
