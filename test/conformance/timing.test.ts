// What a refusal's timing tells an attacker (RFC 9700 section 4.14, OWASP ASVS 2.9 and 3.5): nothing.
// Tokens are looked up by their SHA-256 key and client secrets compared as SHA-256 hashes in constant
// time, so a guess one character from the truth, a random guess and a once-valid value all take
// the same time to refuse. Each case is measured interleaved, so a slow moment of the machine falls
// on every kind alike; a steady difference of a quarter millisecond between medians fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inquiry, type TestApp } from '../support/app.js';
import { startAuthorizationServer } from './support/authorization-server.js';
import { OAuthTestClient, type RegisteredClient } from './support/oauth-client.js';

const SAMPLES = 150;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** Refuses each kind of guess SAMPLES times, interleaved; the spread of their median times in ms. */
async function medianSpread(kinds: Record<string, () => Promise<number>>): Promise<{ spread: number; fastest: number; medians: Record<string, number> }> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]));
  for (const refuse of Object.values(kinds)) await refuse(); // warm each path
  for (let i = 0; i < SAMPLES; i++) for (const [kind, refuse] of Object.entries(kinds)) times[kind]!.push(await refuse());
  const medians = Object.fromEntries(Object.entries(times).map(([kind, values]) => [kind, median(values)]));
  const values = Object.values(medians);
  return { spread: Math.max(...values) - Math.min(...values), fastest: Math.min(...values), medians };
}

async function timed(response: Promise<Response>, status: number): Promise<number> {
  const started = process.hrtime.bigint();
  const answer = await response;
  await answer.arrayBuffer();
  expect(answer.status).toBe(status);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const oneCharacterOff = (value: string) => `${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`;
const randomLike = (value: string) => `${'x'.repeat(value.length - 8)}${Math.random().toString(36).slice(2, 10)}`;

describe('the time a refusal takes', () => {
  let api: TestApp;
  let http: OAuthTestClient;
  let machine: RegisteredClient;
  let valid: string;
  let revoked: string;
  beforeAll(async () => {
    api = await startAuthorizationServer({ RATE_LIMITS: 'off' });
    http = new OAuthTestClient(api.url);
    machine = await http.registerMachineClient();
    const issue = async () => (await (await http.tokenAs(machine, { grant_type: 'client_credentials', scope: 'contact:write' })).json()).access_token as string;
    [valid, revoked] = [await issue(), await issue()];
    expect((await http.revoke(machine, revoked)).status).toBe(200);
  });
  afterAll(() => api.close());

  it('of a Bearer token is the same for a random guess, a near miss and a revoked token', async () => {
    const bearer = (token: string) =>
      timed(fetch(`${api.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(inquiry()) }), 401);
    const { spread, fastest, medians } = await medianSpread({
      random: () => bearer(randomLike(valid)),
      nearMiss: () => bearer(oneCharacterOff(valid)),
      revoked: () => bearer(revoked),
    });
    expect(spread, JSON.stringify(medians)).toBeLessThan(Math.max(0.25, 0.25 * fastest));
  });

  it('of a client secret is the same for a random secret, a near miss and an unknown client', async () => {
    const basic = (id: string, secret: string) => timed(http.tokenAs({ ...machine, client_id: id }, { grant_type: 'client_credentials' }, secret), 401);
    const { spread, fastest, medians } = await medianSpread({
      random: () => basic(machine.client_id, randomLike(machine.client_secret!)),
      nearMiss: () => basic(machine.client_id, oneCharacterOff(machine.client_secret!)),
      unknownClient: () => basic(oneCharacterOff(machine.client_id), machine.client_secret!),
    });
    expect(spread, JSON.stringify(medians)).toBeLessThan(Math.max(0.25, 0.25 * fastest));
  });

  // RFC 7009 section 2.1: revocation authenticates the client as the token endpoint does, and answers alike.
  it('of a revocation is the same for a wrong secret and an unknown client, and so is its answer', async () => {
    const revoke = (id: string, secret: string) => http.revoke({ ...machine, client_id: id }, valid, {}, secret);
    const answers = await Promise.all([revoke(machine.client_id, oneCharacterOff(machine.client_secret!)), revoke(oneCharacterOff(machine.client_id), machine.client_secret!)]);
    const [wrongSecret, unknownClient] = await Promise.all(answers.map(async (r) => ({ status: r.status, authenticate: r.headers.get('www-authenticate'), body: await r.text() })));
    expect(unknownClient).toEqual(wrongSecret);
    const { spread, fastest, medians } = await medianSpread({
      random: () => timed(revoke(machine.client_id, randomLike(machine.client_secret!)), 401),
      unknownClient: () => timed(revoke(oneCharacterOff(machine.client_id), machine.client_secret!), 401),
    });
    expect(spread, JSON.stringify(medians)).toBeLessThan(Math.max(0.25, 0.25 * fastest));
  });
});
