// D19: a node works on a bounded number of inquiries at once, whichever door they come through, with a bounded
// line behind them; beyond the line, or after a wait too long, a newcomer is refused (503 server_busy with
// Retry-After, or the tool's error with the wait), nothing stored, while everything else is served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, inquiry, startApp, type TestApp } from '../support/app.js';
import type { AdmissionLimits } from '../../src/modules/contact/admission.js';
import { startSiteverify, type TestSiteverify } from '../support/siteverify-server.js';

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'contact_service' };
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** A node with these admission limits, whose human check can be made to stall (the token `stall`). */
function admittingNode(admission: AdmissionLimits) {
  let siteverify: TestSiteverify;
  let api: TestApp;
  return {
    async start() {
      siteverify = await startSiteverify();
      const env = { RATE_LIMITS: 'off', TURNSTILE_SECRET_KEY: siteverify.secret, TURNSTILE_SITE_KEY: 'site-key', TURNSTILE_VERIFY_URL: siteverify.url };
      api = await startApp(env, { admission, port: await freePort() });
      return api;
    },
    async stop() {
      await api.close();
      await siteverify.close();
    },
  };
}

describe('a node at its bound of inquiries in flight, with its line full', () => {
  let api: TestApp;
  const node = admittingNode({ inFlight: 1, waiting: 1, waitMs: 5_000 });
  beforeAll(async () => void (api = await node.start()));
  afterAll(() => node.stop());

  /** Two inquiries whose human check never answers (503 at its deadline): one in flight, one in line. */
  const holdBothPlaces = () => [1, 2].map((i) => api.post('/api/contact', inquiry({ turnstileToken: 'stall', message: `Held ${i}` })));

  it('answers a newcomer on /api/contact 503 server_busy with Retry-After at once, and stores nothing of it', async () => {
    const held = holdBothPlaces();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const refused = await api.post('/api/contact', inquiry({ turnstileToken: 'pass', message: 'Turned away' }));
    expect(performance.now() - started).toBeLessThan(200);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(await refused.json()).toMatchObject({ ok: false, error: 'server_busy' });
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([503, 503]);
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
    expect((await api.post('/api/contact', inquiry({ turnstileToken: 'pass@127.0.0.1' }))).status).toBe(200);
  });
});

describe('a newcomer in line', () => {
  let api: TestApp;
  const node = admittingNode({ inFlight: 1, waiting: 4, waitMs: 1_500 });
  beforeAll(async () => void (api = await node.start()));
  afterAll(() => node.stop());

  it('is served once the inquiry ahead of it is done', async () => {
    const ahead = api.post('/api/contact', inquiry({ turnstileToken: 'stall' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const waited = await api.post('/api/contact', inquiry({ turnstileToken: 'pass@127.0.0.1', message: 'Waited for its turn' }));
    expect(waited.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThan(300);
    expect((await ahead).status).toBe(503);
  });

  it('is refused server_busy when its wait runs out', async () => {
    const ahead = [1, 2, 3].map(() => api.post('/api/contact', inquiry({ turnstileToken: 'stall' })));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const refused = await api.post('/api/contact', inquiry({ turnstileToken: 'pass@127.0.0.1', message: 'Waited too long' }));
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: 'server_busy' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_400);
    await Promise.all(ahead);
    expect((await api.deps.inquiries.list({ limit: 10 })).map((i) => i.message)).not.toContain('Waited too long');
  });
});
