// Bearer tokens at POST /api/contact (RFC 6750, RFC 9728 section 5.1): contact:write skips Turnstile; bad tokens get a challenge.
import { randomBytes, randomUUID } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, inquiry, type TestApp } from '../support/app.js';
import { insecure, movableClock, startAuthorizationServer } from './support/authorization-server.js';
import { OAuthTestClient, type RegisteredClient } from './support/oauth-client.js';
import { tokenKey } from '../../src/modules/oauth/secrets.js';

describe('Bearer tokens at POST /api/contact with Turnstile enabled (RFC 6750)', () => {
  const clock = movableClock();
  let api: TestApp;
  let http: OAuthTestClient;
  let machine: RegisteredClient;
  let resourceUrl: URL;
  beforeAll(async () => {
    // siteverify points at a closed port: any request that reached Turnstile would fail.
    const closed = await freePort();
    api = await startAuthorizationServer(
      { TURNSTILE_SECRET_KEY: 'turnstile-secret', TURNSTILE_SITE_KEY: 'site-key', TURNSTILE_VERIFY_URL: `http://127.0.0.1:${closed}/turnstile/v0/siteverify` },
      { clock },
    );
    http = new OAuthTestClient(api.url);
    machine = await http.registerMachineClient();
    resourceUrl = new URL(`${api.url}/api/contact`);
  });
  afterAll(() => api.close());

  const tokenWith = async (scope: string) => {
    const response = await http.tokenAs(machine, { grant_type: 'client_credentials', scope });
    return (await response.json()).access_token as string;
  };
  /** The request a strict client sends (RFC 6750 section 2.1), through oauth4webapi. */
  const callWith = (token: string) => oauth.protectedResourceRequest(token, 'POST', resourceUrl, new Headers({ 'content-type': 'application/json' }), JSON.stringify(inquiry()), insecure);
  /** The challenge oauth4webapi parsed from WWW-Authenticate (RFC 6750 section 3). */
  const challengeFor = async (token: string) => {
    const error = await callWith(token).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const challenge = error as oauth.WWWAuthenticateChallengeError;
    expect(challenge.status).toBe(401);
    expect(challenge.cause).toHaveLength(1);
    return challenge.cause[0]!;
  };

  // Contract section 4, POST /api/contact rule 1: a Bearer token with contact:write skips the human check.
  it('accepts a Bearer token with contact:write without calling siteverify', async () => {
    const response = await callWith(await tokenWith('contact:write'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  // Contract section 4, rule 2: the same request from a browser (no Bearer) depends on Turnstile, which is down here.
  it('fails the same request from a browser without a Bearer token', async () => {
    const response = await http.contact(undefined, { turnstileToken: 'a-browser-token' });
    expect(response.status).toBe(503);
    expect((await response.json()).error).toBe('human_check_unavailable');
    expect((await http.contact()).status).toBe(400);
  });

  // RFC 7235 section 2.1 and RFC 6750 section 2.1: the scheme name is case-insensitive.
  it('accepts the scheme written "bearer"', async () => {
    const token = await tokenWith('contact:write');
    const response = await fetch(resourceUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `bearer ${token}` }, body: JSON.stringify(inquiry()) });
    expect(response.status).toBe(200);
  });

  // RFC 6750 section 3.1 invalid_token; RFC 9728 section 5.1: the challenge points at the resource metadata;
  // RFC 6750 section 3 and MCP 2026-07-28 (scope selection): it names the scope the resource needs.
  it('answers an unknown token with 401 invalid_token, the scope the route needs and resource_metadata', async () => {
    const challenge = await challengeFor('E'.repeat(43));
    expect(challenge.scheme).toBe('bearer');
    expect(challenge.parameters).toMatchObject({
      error: 'invalid_token',
      scope: 'contact:write',
      resource_metadata: `${api.url}/.well-known/oauth-protected-resource/api/contact`,
    });
  });

  // RFC 9728 section 5.1: a client follows resource_metadata and finds the resource it called.
  it('points resource_metadata at a document whose resource is the URL called', async () => {
    const { parameters } = await challengeFor('garbage-token');
    const metadata = await (await fetch(parameters.resource_metadata!)).json();
    expect(metadata.resource).toBe(resourceUrl.href);
    expect(metadata.authorization_servers).toEqual([api.url]);
  });

  // RFC 6750 section 2.1: b64token syntax; anything else is invalid_token.
  it('answers a malformed Authorization header with 401 invalid_token', async () => {
    const response = await fetch(resourceUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer two words' }, body: JSON.stringify(inquiry()) });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  });

  // Contract section 4 rule 3 (401, where RFC 6750 section 3.1 suggests 403); RFC 6750 section 3: the scope is named.
  it('answers a token without contact:write with 401 insufficient_scope, naming the scope and resource_metadata', async () => {
    const challenge = await challengeFor(await tokenWith('docs:read'));
    expect(challenge.parameters).toMatchObject({
      error: 'insufficient_scope',
      scope: 'contact:write',
      resource_metadata: `${api.url}/.well-known/oauth-protected-resource/api/contact`,
    });
  });

  // RFC 8707 section 2 and D4: a token bound to another resource is refused. /mcp is not mounted yet, so the
  // token is written through the real store, as the token endpoint will write one for {base}/mcp.
  it('answers a token issued for another resource ({base}/mcp) with 401 invalid_token', async () => {
    const token = randomBytes(32).toString('base64url');
    await api.deps.oauth.saveTokens([
      {
        tokenHash: tokenKey(token),
        kind: 'access',
        grantId: randomUUID(),
        clientId: machine.client_id,
        scope: 'contact:write mcp:invoke',
        resource: `${api.url}/mcp`,
        expiresAt: clock.now() + 3_600_000,
        state: 'active',
        previousHash: null,
        usedAt: null,
      },
    ]);
    expect((await challengeFor(token)).parameters.error).toBe('invalid_token');
  });

  // RFC 7009 section 2.2 and RFC 6750 section 3.1: a revoked token is invalid_token from then on.
  it('answers a revoked token with 401 invalid_token', async () => {
    const token = await tokenWith('contact:write');
    expect((await http.revoke(machine, token)).status).toBe(200);
    expect((await challengeFor(token)).parameters.error).toBe('invalid_token');
  });

  // RFC 6750 section 3.1 and D4: access tokens live 3600 s (this test moves the clock, so it runs last).
  it('answers an expired token with 401 invalid_token', async () => {
    const token = await tokenWith('contact:write');
    expect((await callWith(token)).status).toBe(200);
    clock.advance(3601);
    expect((await challengeFor(token)).parameters.error).toBe('invalid_token');
  });
});
