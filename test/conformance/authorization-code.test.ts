// The authorization code grant with PKCE (RFC 6749 section 4.1, RFC 7636), by oauth4webapi and over raw HTTP.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { discover, insecure, movableClock, startAuthorizationServer } from './support/authorization-server.js';
import { expectOAuthError } from './support/expectations.js';
import { OAuthTestClient, s256, type RegisteredClient } from './support/oauth-client.js';

describe('authorization code + PKCE with a strict client (RFC 6749 section 4.1, RFC 7636, RFC 9207)', () => {
  let api: TestApp;
  let as: oauth.AuthorizationServer;
  let http: OAuthTestClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    as = await discover(api);
    http = new OAuthTestClient(api.url);
  });
  afterAll(() => api.close());

  /** Registers through DCR, sends the visitor through consent, validates the callback and exchanges the code. */
  const runFlow = async (method: 'none' | 'client_secret_basic' | 'client_secret_post', redirectUri: string) => {
    const metadata = {
      client_name: `code ${method}`,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: method,
      scope: 'contact:write docs:read',
    };
    const registered = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, metadata, insecure));
    const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: method };
    const secret = registered.client_secret as string;
    const auth = method === 'none' ? oauth.None() : method === 'client_secret_basic' ? oauth.ClientSecretBasic(secret) : oauth.ClientSecretPost(secret);

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: 'contact:write',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const callback = await http.consentInBrowser(url);
    // RFC 9207 section 2.4: oauth4webapi checks iss against the discovered issuer, and state.
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, insecure);
    return { callback, response, tokens: await oauth.processAuthorizationCodeResponse(as, client, response.clone()) };
  };

  // RFC 7636 section 4 and RFC 8252 section 7.3: a native app on a loopback redirect, no secret.
  it('completes the flow for a public client (token_endpoint_auth_method none)', async () => {
    const { callback, tokens } = await runFlow('none', 'http://127.0.0.1:49152/callback');
    expect(callback.searchParams.get('iss')).toBe(api.url);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'contact:write', resource: api.url });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect((await http.contact(tokens.access_token)).status).toBe(200);
  });

  // RFC 6749 section 4.1.3: a confidential client authenticates at the token endpoint (HTTP Basic).
  it('completes the flow for a confidential client using client_secret_basic', async () => {
    const { tokens } = await runFlow('client_secret_basic', 'https://app.example/callback');
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'contact:write' });
    expect((await http.contact(tokens.access_token)).status).toBe(200);
  });

  it('completes the flow for a confidential client using client_secret_post', async () => {
    const { tokens } = await runFlow('client_secret_post', 'https://app.example/callback');
    expect(tokens.access_token).toEqual(expect.any(String));
  });

  // RFC 6749 section 5.1: the code exchange is a token response, never cached.
  it('answers the code exchange with Cache-Control: no-store', async () => {
    const { response } = await runFlow('none', 'http://127.0.0.1:49153/callback');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('the authorization code grant over raw HTTP (RFC 6749 section 4.1)', () => {
  const clock = movableClock();
  let api: TestApp;
  let http: OAuthTestClient;
  let web: RegisteredClient;
  beforeAll(async () => {
    api = await startAuthorizationServer({}, { clock });
    http = new OAuthTestClient(api.url);
    web = await http.registerWebClient({ scope: 'contact:write docs:read' });
  });
  afterAll(() => api.close());

  // RFC 6749 section 4.1.2: state is returned exactly as sent; RFC 9207 section 2: iss is always present.
  it('returns the code with the exact state and the issuer', async () => {
    const result = await http.authorizeAndConsent(web, { state: 'a b+c/d=é' });
    expect(result.callback.searchParams.get('state')).toBe('a b+c/d=é');
    expect(result.callback.searchParams.get('iss')).toBe(api.url);
    expect(result.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  // RFC 6749 section 4.1.2: state is echoed only when the client sent one.
  it('adds no state when the client sent none', async () => {
    const result = await http.authorizeAndConsent(web, { state: null });
    expect(result.callback.searchParams.has('state')).toBe(false);
    expect(result.code).not.toBe('');
  });

  // RFC 6749 section 3.1.2: the redirection endpoint's query component is retained.
  it('keeps the query of the registered redirect URI', async () => {
    const tenant = await http.registerWebClient({ redirect_uris: ['https://app.example/callback?tenant=7'] });
    const result = await http.authorizeAndConsent(tenant);
    expect(result.callback.searchParams.get('tenant')).toBe('7');
    expect((await http.exchange(tenant, result)).status).toBe(200);
  });

  // RFC 8252 section 7.3: a loopback redirect URI matches on any port; the exchange repeats that exact URI.
  it('accepts a loopback redirect URI on any port, and needs the same URI at the token endpoint', async () => {
    const native = await http.registerClient({ redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' });
    const result = await http.authorizeAndConsent(native, { redirectUri: 'http://127.0.0.1:51004/callback' });
    expect(result.callback.origin).toBe('http://127.0.0.1:51004');
    expect((await http.exchange(native, result)).status).toBe(200);

    const other = await http.authorizeAndConsent(native, { redirectUri: 'http://127.0.0.1:51005/callback' });
    await expectOAuthError(await http.exchange(native, { ...other, redirectUri: 'http://127.0.0.1:51006/callback' }), 400, 'invalid_grant');
  });

  // RFC 6749 section 4.1.3: redirect_uri must be identical to the one in the authorization request.
  it('answers invalid_grant when redirect_uri differs from the authorization request', async () => {
    const two = await http.registerWebClient({ redirect_uris: ['https://app.example/callback', 'https://app.example/other'] });
    const result = await http.authorizeAndConsent(two);
    await expectOAuthError(await http.exchange(two, { ...result, redirectUri: 'https://app.example/other' }), 400, 'invalid_grant');
  });

  // RFC 6749 section 4.1.3: the code was issued to another client.
  it('answers invalid_grant to a code issued to another client', async () => {
    const result = await http.authorizeAndConsent(web);
    const thief = await http.registerWebClient();
    await expectOAuthError(await http.exchange(thief, result), 400, 'invalid_grant');
  });

  // RFC 6749 section 4.1.2: a code used twice is refused and the tokens issued from it are revoked (D4).
  it('refuses a replayed code and revokes the access and refresh tokens it issued', async () => {
    const result = await http.authorizeAndConsent(web);
    const first = await http.exchange(web, result);
    const tokens = await first.json();
    expect(first.status).toBe(200);
    expect((await http.contact(tokens.access_token)).status).toBe(200);

    await expectOAuthError(await http.exchange(web, result), 400, 'invalid_grant');
    expect((await http.contact(tokens.access_token)).status).toBe(401);
    await expectOAuthError(await http.refresh(web, tokens.refresh_token), 400, 'invalid_grant');
  });

  // D4: "A replayed code revokes every token issued from it", including those a refresh rotated in since.
  it('revokes the rotated tokens of the grant too when the code is replayed after a refresh', async () => {
    const result = await http.authorizeAndConsent(web);
    const tokens = await (await http.exchange(web, result)).json();
    const rotated = await (await http.refresh(web, tokens.refresh_token)).json();
    await expectOAuthError(await http.exchange(web, result), 400, 'invalid_grant');
    expect((await http.contact(rotated.access_token)).status).toBe(401);
    await expectOAuthError(await http.refresh(web, rotated.refresh_token), 400, 'invalid_grant');
  });

  // D4 and RFC 6749 section 4.1.2: raced exchanges of one code; the loser is a replay, so the winner's tokens die too.
  it("revokes the winner's tokens when one code is exchanged twice at the same moment", async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const result = await http.authorizeAndConsent(web);
      const answers = await Promise.all([http.exchange(web, result), http.exchange(web, result)]);
      // Either one exchange wins and its tokens are then revoked, or the replay is seen first and both fail.
      expect([
        [200, 400],
        [400, 400],
      ]).toContainEqual(answers.map((a) => a.status).sort());
      const won = answers.find((a) => a.status === 200);
      if (!won) continue;
      const winner = await won.json();
      expect((await http.contact(winner.access_token)).status, `attempt ${attempt}: the access token survived the replay`).toBe(401);
      await expectOAuthError(await http.refresh(web, winner.refresh_token), 400, 'invalid_grant');
    }
  });

  // RFC 7636 section 4.6: a wrong verifier is invalid_grant; RFC 6749 section 4.1.2: the code is spent all the same.
  it('burns the code when the PKCE check fails: a second try with the right verifier fails too', async () => {
    const result = await http.authorizeAndConsent(web);
    await expectOAuthError(await http.exchange(web, { ...result, verifier: 'x'.repeat(43) }), 400, 'invalid_grant');
    await expectOAuthError(await http.exchange(web, result), 400, 'invalid_grant');
  });

  // RFC 7636 section 4.1: a verifier has at least 43 characters, even when its S256 would match.
  it('refuses a 42-character code_verifier whose S256 matches the challenge', async () => {
    const short = 'v'.repeat(42);
    const result = await http.authorizeAndConsent(web, { extra: { code_challenge: s256(short) } });
    await expectOAuthError(await http.exchange(web, { ...result, verifier: short }), 400, 'invalid_grant');
  });

  // RFC 7636 section 4.5: the token request carries code_verifier.
  it('refuses an exchange without code_verifier', async () => {
    const result = await http.authorizeAndConsent(web);
    const response = await http.tokenAs(web, { grant_type: 'authorization_code', code: result.code, redirect_uri: result.redirectUri });
    expect(response.status).toBe(400);
    expect(['invalid_request', 'invalid_grant']).toContain((await response.json()).error);
  });

  // RFC 6749 section 3.1: "The authorization server MUST ignore unrecognized request parameters."
  it('ignores unrecognized authorization request parameters', async () => {
    const result = await http.authorizeAndConsent(web, { extra: { display: 'page', unknown_extension: 'x' } });
    expect((await http.exchange(web, result)).status).toBe(200);
  });

  // RFC 6749 section 3.1: "Parameters sent without a value MUST be treated as if they were omitted from the request."
  it('treats an empty scope as omitted: the registered scope is asked for and granted', async () => {
    const result = await http.authorizeAndConsent(web, { scope: '' });
    expect((await (await http.exchange(web, result)).json()).scope).toBe('contact:write docs:read');
  });

  it('treats an empty state as omitted: the response carries no state', async () => {
    const result = await http.authorizeAndConsent(web, { state: '' });
    expect(result.callback.searchParams.has('state')).toBe(false);
  });

  it('treats an empty resource as omitted: the token is for the API as a whole', async () => {
    const result = await http.authorizeAndConsent(web, { resource: '' });
    expect((await (await http.exchange(web, result)).json()).resource).toBe(api.url);
  });

  // RFC 6749 section 4.1.2 and D4: codes live 60 seconds.
  it('answers invalid_grant to a code older than 60 seconds', async () => {
    const result = await http.authorizeAndConsent(web);
    clock.advance(61);
    await expectOAuthError(await http.exchange(web, result), 400, 'invalid_grant');
  });

  it('answers invalid_grant to a code that was never issued', async () => {
    const result = await http.authorizeAndConsent(web);
    await expectOAuthError(await http.exchange(web, { ...result, code: 'A'.repeat(43) }), 400, 'invalid_grant');
  });

  // RFC 6749 section 3.3 and D5: the token carries the scope the visitor consented to.
  it('issues the consented scope, or the registered scope when none was requested', async () => {
    const narrow = await http.exchange(web, await http.authorizeAndConsent(web, { scope: 'docs:read' }));
    expect((await narrow.json()).scope).toBe('docs:read');
    const all = await http.exchange(web, await http.authorizeAndConsent(web));
    expect((await all.json()).scope).toBe('contact:write docs:read');
  });

  // RFC 8707 section 2: a resource at the token endpoint other than the authorized one is invalid_target.
  it('answers invalid_target when the exchange names another resource', async () => {
    const result = await http.authorizeAndConsent(web, { resource: `${api.url}/api/contact` });
    await expectOAuthError(await http.exchange(web, result, { resource: 'https://elsewhere.example/api' }), 400, 'invalid_target');
  });

  // RFC 8707 section 2 and D4: the token is bound to one resource, named in the response.
  it('echoes the resource the code was issued for', async () => {
    const result = await http.authorizeAndConsent(web, { resource: `${api.url}/api/contact` });
    const response = await http.exchange(web, result, { resource: `${api.url}/api/contact` });
    expect((await response.json()).resource).toBe(`${api.url}/api/contact`);
  });
});
