// Every error has the one body shape; liveness and readiness answer; logs keep bodies and secrets out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inquiry, startApp, type TestApp } from '../support/app.js';

describe('errors and probes', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' });
  });
  afterAll(() => api.close());

  it('answers an unknown path 404 with the Error body', async () => {
    const response = await fetch(`${api.url}/no/such/thing?x=1`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ error: 'not_found', error_description: 'no route for GET /no/such/thing', ok: false });
  });

  it('answers a known path with the wrong method 405 with Allow', async () => {
    const response = await fetch(`${api.url}/api/contact`, { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
    expect(await response.json()).toMatchObject({ error: 'method_not_allowed', ok: false });
  });

  it('answers /healthz 200 and /readyz 200 while the database answers', async () => {
    expect(await (await fetch(`${api.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${api.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('answers /readyz 503 when the database is gone', async () => {
    const broken = await startApp({ RATE_LIMITS: 'off' });
    try {
      await broken.deps.engine.destroy();
      const response = await fetch(`${broken.url}/readyz`);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ error: 'not_ready', ok: false });
      expect((await fetch(`${broken.url}/healthz`)).status).toBe(200);
    } finally {
      await broken.app.close();
      await broken.deps.mailer?.close();
    }
  });

  it('logs requests without message bodies, e-mail addresses or query strings', async () => {
    await api.post('/api/contact', inquiry({ email: 'private.person@example.com', message: 'a very private message body' }));
    await fetch(`${api.url}/healthz?access_token=leaky-token`);
    const logs = api.logs.join('');
    expect(logs).toContain('"route":"/api/contact"');
    expect(logs).not.toContain('a very private message body');
    expect(logs).not.toContain('private.person@example.com');
    expect(logs).not.toContain('leaky-token');
  });
});
