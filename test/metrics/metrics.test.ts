// METRICS_PORT: `portico serve` counts what it does and serves it in Prometheus' text format on a
// listener of its own; the public port has no /metrics.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, inquiry } from '../support/app.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

type Series = { name: string; labels: Record<string, string>; value: number };

/** Prometheus' text exposition format, one sample per line. */
function parse(text: string): Series[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-z_:][a-z0-9_:]*)(?:\{(.*)\})? (\S+)$/i.exec(line)!;
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

describe('metrics on METRICS_PORT', () => {
  let dir: string;
  let smtp: TestSmtpServer;
  let server: ServeProcess;
  let metricsUrl: string;
  const scrape = async () => parse(await (await fetch(metricsUrl)).text());
  /** The value of the one series with this name and (at least) these labels; 0 when absent. */
  const value = (series: Series[], name: string, labels: Record<string, string> = {}) =>
    series.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-metrics-'));
    smtp = await startSmtpServer('accept');
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    server = await startServe({ DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`, SMTP_URL: smtp.url, METRICS_PORT: String(metricsPort), RATE_LIMITS: 'contact=9/h' });
  });
  afterAll(async () => {
    server.child.kill('SIGKILL');
    await smtp.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('counts requests, refusals, inquiries by channel and outcome, deliveries, tokens and registrations', async () => {
    expect((await post('/api/contact', inquiry({ message: 'Metrics: the first inquiry.' }))).status).toBe(200);
    expect((await post('/api/contact', inquiry({ privacy: false }))).status).toBe(400);
    expect((await post('/api/contact', inquiry({ website: 'http://spam.example' }))).status).toBe(200);
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'contact_service',
        arguments: inquiry({ message: 'Metrics: through MCP.', topic: 'demo' }),
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
      },
    };
    const mcp = await post('/mcp', call, { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'contact_service' });
    expect(mcp.status).toBe(200);

    const registered = await (await post('/oauth/register', { client_name: 'CRM', grant_types: ['client_credentials'] })).json();
    const token = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'contact:write' }),
    });
    const bearer = { authorization: `Bearer ${(await token.json()).access_token}` };
    expect((await post('/api/contact', inquiry({ message: 'Metrics: from a client.' }), bearer)).status).toBe(200);
    // The same again: a duplicate, answered alike and not delivered (D20).
    expect((await post('/api/contact', inquiry({ message: 'Metrics: from a client.' }), bearer)).status).toBe(200);
    // A throwaway address: delivered, marked.
    expect((await post('/api/contact', inquiry({ email: 'ana@mailinator.com', message: 'Metrics: from a throwaway address.' }), bearer)).status).toBe(200);

    smtp.mode = 'reject-rcpt'; // 550: no retry left
    expect((await post('/api/contact', inquiry({ message: 'Metrics: refused for good.' }), bearer)).status).toBe(502);
    smtp.mode = 'reject-mail'; // 451: retried later
    expect((await post('/api/contact', inquiry({ message: 'Metrics: refused for now.' }))).status).toBe(502);
    expect((await post('/api/contact', inquiry({ message: 'Metrics: one too many.' }))).status).toBe(429);

    const series = await scrape();
    expect(value(series, 'portico_http_requests_total', { route: '/api/contact', method: 'POST', status: '200' })).toBe(5);
    expect(value(series, 'portico_http_requests_total', { route: '/api/contact', status: '400' })).toBe(1);
    expect(value(series, 'portico_http_requests_total', { route: '/api/contact', status: '502' })).toBe(2);
    expect(value(series, 'portico_http_requests_total', { route: '/api/contact', status: '429' })).toBe(1);
    expect(value(series, 'portico_http_requests_total', { route: '/mcp', method: 'POST', status: '200' })).toBe(1);
    expect(value(series, 'portico_http_request_duration_seconds_count', { route: '/oauth/token', method: 'POST' })).toBe(1);
    expect(value(series, 'portico_rate_limited_total', { limit: 'contact' })).toBe(1);
    expect(value(series, 'portico_inquiries_accepted_total', { channel: 'web' })).toBe(2);
    expect(value(series, 'portico_inquiries_accepted_total', { channel: 'api' })).toBe(3);
    expect(value(series, 'portico_inquiries_accepted_total', { channel: 'mcp' })).toBe(1);
    expect(value(series, 'portico_inquiries_accepted_total', { channel: 'mcp', topic: 'demo' })).toBe(1);
    expect(value(series, 'portico_inquiries_accepted_total', { topic: 'general' })).toBe(5);
    expect(value(series, 'portico_inquiry_outcomes_total', { topic: 'demo', outcome: 'delivered' })).toBe(1);
    expect(value(series, 'portico_inquiry_outcomes_total', { channel: 'web', outcome: 'spam' })).toBe(1);
    expect(value(series, 'portico_inquiry_outcomes_total', { outcome: 'delivered' })).toBe(4);
    expect(value(series, 'portico_inquiry_outcomes_total', { channel: 'api', outcome: 'duplicate' })).toBe(1);
    expect(value(series, 'portico_inquiry_spam_reasons_total', { channel: 'web', reason: 'honeypot', action: 'held' })).toBe(1);
    expect(value(series, 'portico_inquiry_spam_reasons_total', { channel: 'api', reason: 'disposable-address', action: 'marked' })).toBe(1);
    expect(value(series, 'portico_inquiry_outcomes_total', { channel: 'api', outcome: 'failed' })).toBe(1);
    expect(value(series, 'portico_inquiry_outcomes_total', { channel: 'web', outcome: 'retrying' })).toBe(1);
    expect(value(series, 'portico_delivery_attempts_total', { channel: 'mail', result: 'ok' })).toBe(4);
    expect(value(series, 'portico_delivery_attempts_total', { channel: 'mail', result: 'error' })).toBe(2);
    expect(value(series, 'portico_delivery_duration_seconds_count', { channel: 'mail' })).toBe(6);
    expect(value(series, 'portico_oauth_tokens_issued_total', { grant: 'client_credentials' })).toBe(1);
    expect(value(series, 'portico_oauth_clients_registered_total')).toBe(1);
    expect(value(series, 'portico_inquiries_undelivered', { state: 'retrying' })).toBe(1);
    expect(value(series, 'portico_oldest_undelivered_inquiry_age_seconds')).toBeGreaterThan(0);
    expect(value(series, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    // No raw path, client id or address among the labels.
    expect(JSON.stringify(series)).not.toContain(registered.client_id);
  });

  it('reports the retried inquiry delivered once the relay takes it, and an empty backlog', { timeout: 45_000 }, async () => {
    smtp.mode = 'accept';
    for (let series = await scrape(); ; series = await scrape()) {
      if (value(series, 'portico_inquiry_outcomes_total', { channel: 'web', outcome: 'delivered' }) === 2) {
        expect(value(series, 'portico_inquiries_undelivered', { state: 'retrying' })).toBe(0);
        expect(value(series, 'portico_oldest_undelivered_inquiry_age_seconds')).toBe(0);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  });

  it('serves nothing of /metrics on the public port', async () => {
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('portico_');
  });
});

describe('the request-duration histogram', () => {
  let dir: string;
  let smtp: TestSmtpServer;
  let server: ServeProcess;
  let metricsUrl: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-metrics-'));
    // A relay that answers each message after 1.5 s: an inquiry's request is held that long.
    smtp = await startSmtpServer('slow');
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    server = await startServe({ DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`, SMTP_URL: smtp.url, METRICS_PORT: String(metricsPort), RATE_LIMITS: 'off', LOG_LEVEL: 'info' });
  });
  afterAll(async () => {
    server.child.kill('SIGKILL');
    await smtp.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('puts requests held for a known time in the buckets their access lines time, and adds their total to _sum', async () => {
    for (let i = 0; i < 2; i++) {
      const body = JSON.stringify(inquiry({ message: `A slow delivery, ${i + 1}.` }));
      const response = await fetch(`${server.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(response.status).toBe(200);
    }
    const series = parse(await (await fetch(metricsUrl)).text());
    const of = (name: string, le?: string) => series.find((s) => s.name === name && s.labels.route === '/api/contact' && s.labels.method === 'POST' && (le === undefined || s.labels.le === le))?.value;
    // The access lines are written within a second of their request.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const timed = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"route":"/api/contact"') && line.includes('"msg":"request"'))
      .map((line) => (JSON.parse(line) as { ms: number }).ms / 1000);
    expect(timed).toHaveLength(2);
    for (const seconds of timed) expect(seconds).toBeGreaterThan(1.5);
    expect(of('portico_http_request_duration_seconds_count')).toBe(2);
    expect(of('portico_http_request_duration_seconds_bucket', '1')).toBe(0);
    expect(of('portico_http_request_duration_seconds_bucket', '2.5')).toBe(timed.filter((s) => s <= 2.5).length);
    expect(of('portico_http_request_duration_seconds_sum')).toBeCloseTo(timed[0]! + timed[1]!, 1);
  });
});
