// A presented Bearer token is looked up by its SHA-256 key, never compared byte by byte with stored
// ones (RFC 9700 section 4.14, OWASP ASVS 2.9.2 / 3.5.x): how long the 401 takes tells an attacker
// nothing about how close a guess came, nor whether a token once existed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inquiry, type TestApp } from '../support/app.js';
import { startAuthorizationServer } from './support/authorization-server.js';
import { OAuthTestClient } from './support/oauth-client.js';

const SAMPLES = 150;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
};

describe('the time a refused Bearer token takes (RFC 9700 section 4.14)', () => {
  let api: TestApp;
  let valid: string;
  let revoked: string;
  beforeAll(async () => {
    api = await startAuthorizationServer({ RATE_LIMITS: 'off' });
    const http = new OAuthTestClient(api.url);
    const machine = await http.registerMachineClient();
    const issue = async () => (await (await http.tokenAs(machine, { grant_type: 'client_credentials', scope: 'contact:write' })).json()).access_token as string;
    [valid, revoked] = [await issue(), await issue()];
    const revocation = await http.revoke(machine, revoked);
    expect(revocation.status).toBe(200);
  });
  afterAll(() => api.close());

  const refusal = async (token: string) => {
    const started = process.hrtime.bigint();
    const response = await fetch(`${api.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(inquiry()) });
    await response.arrayBuffer();
    expect(response.status).toBe(401);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };

  it('is the same for a random guess, a guess one character from a real token, and a revoked token', async () => {
    const lastSwapped = `${valid.slice(0, -1)}${valid.endsWith('A') ? 'B' : 'A'}`;
    const kinds = { random: () => `${'x'.repeat(valid.length - 8)}${Math.random().toString(36).slice(2, 10)}`, nearMiss: () => lastSwapped, revoked: () => revoked };
    const times: Record<string, number[]> = { random: [], nearMiss: [], revoked: [] };
    for (const token of Object.values(kinds)) await refusal(token()); // warm each path
    // Interleaved, so a slow moment of the machine falls on every kind alike.
    for (let i = 0; i < SAMPLES; i++) for (const [kind, token] of Object.entries(kinds)) times[kind]!.push(await refusal(token()));
    const medians = Object.fromEntries(Object.entries(times).map(([kind, values]) => [kind, median(values)]));
    const spread = Math.max(...Object.values(medians)) - Math.min(...Object.values(medians));
    // Loopback HTTP takes about a millisecond; a byte-by-byte comparison or a branch that does more
    // work for a known token would show up as a steady difference between the medians.
    expect(spread, JSON.stringify(medians)).toBeLessThan(Math.max(0.25, 0.25 * Math.min(...Object.values(medians))));
  });
});
