// Per-IP rate limits on the authorization server (contract section 8, D9, RFC 6585 section 4): register, token, authorize.
import { afterEach, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { startAuthorizationServer } from './support/authorization-server.js';
import { expectOAuthError } from './support/expectations.js';
import { consentIdOf, OAuthTestClient, type Browser } from './support/oauth-client.js';

describe('rate limits of the authorization server', () => {
  let api: TestApp | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  /** RFC 6585 section 4 with D9: rate_limited, Retry-After in seconds, the RateLimit-* headers, never cached. */
  const expectLimited = async (response: Response, policy: string) => {
    await expectOAuthError(response, 429, 'rate_limited');
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(response.headers.get('ratelimit-remaining')).toBe('0');
    expect(response.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    expect(response.headers.get('ratelimit-policy')).toBe(policy);
  };

  // Contract section 8: POST /oauth/register, 10 per hour per IP.
  it('answers the 11th registration within an hour from one IP with 429', async () => {
    api = await startAuthorizationServer({ RATE_LIMITS: 'default' });
    const http = new OAuthTestClient(api.url);
    const answers: Response[] = [];
    for (let i = 0; i < 11; i++) answers.push(await http.register({ grant_types: ['client_credentials'] }));
    expect(answers.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(201));
    // D9: successful responses on limited routes announce the budget too.
    expect(answers[0]!.headers.get('ratelimit-limit')).toBe('10');
    expect(answers[0]!.headers.get('ratelimit-policy')).toBe('10;w=3600');
    await expectLimited(answers[10]!, '10;w=3600');
    expect(Number(answers[10]!.headers.get('retry-after'))).toBeGreaterThan(3500);
  });

  // Contract section 8: POST /oauth/token, 30 per minute per IP; failed requests count too.
  it('answers the 31st token request within a minute with 429', async () => {
    api = await startAuthorizationServer({ RATE_LIMITS: 'default' });
    const http = new OAuthTestClient(api.url);
    const machine = await http.registerMachineClient();
    const statuses: number[] = [];
    for (let i = 0; i < 29; i++) statuses.push((await http.tokenAs(machine, { grant_type: 'client_credentials' })).status);
    statuses.push((await http.tokenAs(machine, { grant_type: 'client_credentials' }, 'wrong-secret')).status);
    expect(statuses).toEqual([...Array(29).fill(200), 401]);
    await expectLimited(await http.tokenAs(machine, { grant_type: 'client_credentials' }), '30;w=60');
  });

  // Ours, beyond the contract: revocation authenticates clients, so it is limited like the token endpoint.
  it('answers the 31st revocation within a minute with 429, whatever the credentials', async () => {
    api = await startAuthorizationServer({ RATE_LIMITS: 'default' });
    const http = new OAuthTestClient(api.url);
    const machine = await http.registerMachineClient();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await http.revoke(machine, 'some-token', {}, i % 2 ? 'wrong-secret' : undefined)).status);
    expect(statuses).toEqual(Array.from({ length: 30 }, (_, i) => (i % 2 ? 401 : 200)));
    await expectLimited(await http.revoke(machine, 'some-token'), '30;w=60');
  });

  // Contract section 8: GET and POST /oauth/authorize draw from one budget.
  it('counts GET and POST /oauth/authorize against one shared budget', async () => {
    api = await startAuthorizationServer({ RATE_LIMITS: 'authorize=3/m' });
    const http = new OAuthTestClient(api.url);
    const web = await http.registerWebClient();
    const browser: Browser = {};
    const page = await http.openAuthorization(http.authorizationUrl(web).url, browser);
    expect(page.status).toBe(200);
    expect((await http.submitConsent(consentIdOf(await page.text()), 'approve', browser)).status).toBe(303);
    const second = await http.openAuthorization(http.authorizationUrl(web).url, browser);
    expect(second.status).toBe(200);
    await expectLimited(await http.submitConsent(consentIdOf(await second.text()), 'approve', browser), '3;w=60');
    await expectLimited(await http.openAuthorization(http.authorizationUrl(web).url, browser), '3;w=60');
  });

  // RATE_LIMITS names each limit: the token budget is not the registration budget.
  it('keeps separate budgets per endpoint', async () => {
    api = await startAuthorizationServer({ RATE_LIMITS: 'register=2/h' });
    const http = new OAuthTestClient(api.url);
    const machine = await http.registerMachineClient();
    await http.registerMachineClient();
    await expectLimited(await http.register({ grant_types: ['client_credentials'] }), '2;w=3600');
    expect((await http.tokenAs(machine, { grant_type: 'client_credentials' })).status).toBe(200);
  });
});
