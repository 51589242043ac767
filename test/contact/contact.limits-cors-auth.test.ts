// POST /api/contact: per-IP rate limit (D9), CORS for the site's origins (D10), and the Bearer seam.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inquiry, startApp, type TestApp } from '../support/app.js';

describe('the per-IP rate limit of POST /api/contact', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => api.close());
  const from = (ip: string) => ({ 'x-forwarded-for': ip });

  it('allows 8 per hour, announcing the policy, then answers 429 with Retry-After', async () => {
    const answers: Response[] = [];
    for (let i = 0; i < 9; i++) answers.push(await api.post('/api/contact', inquiry(), from('203.0.113.7')));
    expect(answers.slice(0, 8).map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(answers[0]?.headers.get('ratelimit-limit')).toBe('8');
    expect(answers[0]?.headers.get('ratelimit-remaining')).toBe('7');
    expect(answers[0]?.headers.get('ratelimit-policy')).toBe('8;w=3600');
    const limited = answers[8]!;
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: 'rate_limited', ok: false });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    expect(limited.headers.get('ratelimit-policy')).toBe('8;w=3600');
    expect(limited.headers.get('cache-control')).toBe('no-store');
  });

  it('counts each client IP on its own when the proxy is trusted', async () => {
    expect((await api.post('/api/contact', inquiry(), from('198.51.100.1'))).status).toBe(200);
  });

  it('groups an IPv6 /64 into one client', async () => {
    for (let i = 1; i <= 8; i++) expect((await api.post('/api/contact', inquiry(), from(`2001:db8:1:2::${i}`))).status).toBe(200);
    expect((await api.post('/api/contact', inquiry(), from('2001:db8:1:2:ffff::9'))).status).toBe(429);
    expect((await api.post('/api/contact', inquiry(), from('2001:db8:1:3::1'))).status).toBe(200);
  });

  it('counts IPv4 clients behind a NAT64 translator by the IPv4 address each comes from, as if they came directly', async () => {
    for (let i = 1; i <= 8; i++) expect((await api.post('/api/contact', inquiry(), from(i % 2 ? '64:ff9b::198.51.100.20' : '64:ff9b::c633:6414'))).status).toBe(200);
    expect((await api.post('/api/contact', inquiry(), from('198.51.100.20'))).status).toBe(429);
    // Another IPv4 client behind the same translator, and one behind a local-use prefix (RFC 8215).
    expect((await api.post('/api/contact', inquiry(), from('64:ff9b::198.51.100.21'))).status).toBe(200);
    for (let i = 1; i <= 8; i++) expect((await api.post('/api/contact', inquiry(), from('64:ff9b:1:0:0:0:203.0.113.50'))).status).toBe(200);
    expect((await api.post('/api/contact', inquiry(), from('203.0.113.50'))).status).toBe(429);
    expect((await api.post('/api/contact', inquiry(), from('64:ff9b:1:0:0:0:203.0.113.51'))).status).toBe(200);
  });

  it('records the client IP from X-Forwarded-For on the inquiry', async () => {
    await api.post('/api/contact', inquiry({ email: 'forwarded@example.com' }), from('192.0.2.44'));
    const [latest] = await api.deps.inquiries.list({ limit: 1 });
    expect(latest).toMatchObject({ email: 'forwarded@example.com', remoteIp: '192.0.2.44' });
  });
});

describe('X-Forwarded-For without TRUST_PROXY', () => {
  it('is ignored: rotating it does not escape the limit', async () => {
    const api = await startApp({ RATE_LIMITS: 'contact=2/h' });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await api.post('/api/contact', inquiry(), { 'x-forwarded-for': `203.0.113.${i}` })).status);
      expect(statuses).toEqual([200, 200, 429]);
      const [latest] = await api.deps.inquiries.list({ limit: 1 });
      expect(latest?.remoteIp).toBe('127.0.0.1');
    } finally {
      await api.close();
    }
  });
});

describe('CORS on /api/contact', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ CONTACT_ALLOWED_ORIGINS: 'https://www.portico.example,https://portico.example', RATE_LIMITS: 'off' });
  });
  afterAll(() => api.close());
  const preflight = (origin: string) =>
    fetch(`${api.url}/api/contact`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });

  it('answers a preflight from an allowed origin 204 with the allowed method and headers', async () => {
    const response = await preflight('https://www.portico.example');
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(response.headers.get('access-control-allow-origin')).toBe('https://www.portico.example');
    expect(response.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
    expect(response.headers.get('vary')).toContain('Origin');
  });

  it('answers a preflight from another origin without allow headers, so the browser refuses', async () => {
    const response = await preflight('https://evil.example');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets an allowed origin read the answer and the rate-limit headers', async () => {
    const response = await api.post('/api/contact', inquiry(), { origin: 'https://portico.example' });
    expect(response.headers.get('access-control-allow-origin')).toBe('https://portico.example');
    expect(response.headers.get('access-control-expose-headers')).toContain('Retry-After');
  });

  it('is not rate limited on preflight', async () => {
    const limited = await startApp({ RATE_LIMITS: 'contact=1/h' });
    try {
      for (let i = 0; i < 3; i++) {
        expect((await fetch(`${limited.url}/api/contact`, { method: 'OPTIONS', headers: { origin: 'http://localhost:3000' } })).status).toBe(204);
      }
    } finally {
      await limited.close();
    }
  });
});

describe('Bearer tokens on /api/contact before the authorization server exists', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' });
  });
  afterAll(() => api.close());

  it.each([
    ['a Bearer token', 'Bearer abc.def'],
    ['a malformed Bearer header', 'Bearer'],
    ['Basic credentials', 'Basic dXNlcjpwYXNz'],
  ])('answers 401 with a Bearer challenge for %s, and sends nothing', async (_case, authorization) => {
    const before = (await api.deps.inquiries.list({ limit: 1000 })).length;
    const response = await api.post('/api/contact', inquiry(), { authorization });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_token', ok: false });
    const challenge = response.headers.get('www-authenticate');
    expect(challenge).toMatch(/^Bearer error="invalid_token"/);
    expect(challenge).toContain('resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/api/contact"');
    expect((await api.deps.inquiries.list({ limit: 1000 })).length).toBe(before);
  });

  it('never writes the token to the logs', async () => {
    await api.post('/api/contact', inquiry(), { authorization: 'Bearer very-secret-token-value' });
    expect(api.logs.join('')).not.toContain('very-secret-token-value');
  });
});
