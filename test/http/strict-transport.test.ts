// Strict-Transport-Security (RFC 6797) on what reached the node over https, as a trusted proxy says it
// did, and never over plain http (section 7.2).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';

const DOCUMENT = '/.well-known/oauth-authorization-server';

describe('Strict-Transport-Security', () => {
  let behindProxy: TestApp;
  let trustingNone: TestApp;
  let plainHttp: TestApp;
  beforeAll(async () => {
    behindProxy = await startApp({ PUBLIC_URL: 'https://api.portico.example', TRUST_PROXY: '1', RATE_LIMITS: 'off' });
    trustingNone = await startApp({ PUBLIC_URL: 'https://api.portico.example', RATE_LIMITS: 'off' });
    plainHttp = await startApp({ TRUST_PROXY: '1', RATE_LIMITS: 'off' });
  });
  afterAll(async () => {
    for (const app of [behindProxy, trustingNone, plainHttp]) await app.close();
  });

  const hsts = async (app: TestApp, path: string, headers: Record<string, string> = {}) => (await fetch(`${app.url}${path}`, { headers })).headers.get('strict-transport-security');

  it('is sent for a year when the trusted proxy says the request came over https, on answers and refusals alike', async () => {
    expect(await hsts(behindProxy, DOCUMENT, { 'x-forwarded-proto': 'https' })).toBe('max-age=31536000');
    expect(await hsts(behindProxy, '/no-such-path', { 'x-forwarded-proto': 'https' })).toBe('max-age=31536000');
  });

  it('is not sent when the proxy says nothing of the scheme, or says http', async () => {
    expect(await hsts(behindProxy, DOCUMENT)).toBeNull();
    expect(await hsts(behindProxy, DOCUMENT, { 'x-forwarded-proto': 'http' })).toBeNull();
  });

  it('is not sent when no proxy is trusted, whatever the request claims', async () => {
    expect(await hsts(trustingNone, DOCUMENT, { 'x-forwarded-proto': 'https' })).toBeNull();
  });

  it('is never sent by a node whose PUBLIC_URL is plain http', async () => {
    expect(await hsts(plainHttp, DOCUMENT, { 'x-forwarded-proto': 'https' })).toBeNull();
  });
});
