// Dynamic client registration (RFC 7591): a strict client registers; defaults, redirect URI rules and metadata errors.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { discover, insecure, startAuthorizationServer } from './support/authorization-server.js';
import { expectOAuthError } from './support/expectations.js';
import { OAuthTestClient } from './support/oauth-client.js';

describe('dynamic client registration (RFC 7591)', () => {
  let api: TestApp;
  let as: oauth.AuthorizationServer;
  let client: OAuthTestClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    as = await discover(api);
    client = new OAuthTestClient(api.url);
  });
  afterAll(() => api.close());

  // RFC 7591 section 3.2.1: 201 with client_id, client_secret and client_secret_expires_at (a number, 0 = never).
  it('registers a confidential client through oauth4webapi: 201, client_id, client_secret, numeric client_secret_expires_at', async () => {
    const before = Math.floor(Date.now() / 1000);
    const response = await oauth.dynamicClientRegistrationRequest(as, { client_name: 'Strict client', redirect_uris: ['https://app.example/cb'] }, insecure);
    expect(response.status).toBe(201);
    const registered = await oauth.processDynamicClientRegistrationResponse(response);
    expect(registered.client_id).toEqual(expect.any(String));
    expect(registered.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(registered.client_secret_expires_at).toBe(0);
    expect(registered.client_id_issued_at).toBeGreaterThanOrEqual(before);
    expect(registered.client_name).toBe('Strict client');
  });

  // D9 (and RFC 7591 section 3.2.1: the secret is shown once): a registration response is never cached.
  it('answers with Cache-Control: no-store', async () => {
    const response = await client.register({ redirect_uris: ['https://app.example/cb'] });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  // RFC 7591 section 2 defaults, echoed with their effective values (D6); all three scopes (D5).
  it('echoes the defaults: client_secret_basic, ["authorization_code"] and every scope', async () => {
    const registered = await client.registerClient({ redirect_uris: ['https://app.example/cb'] });
    expect(registered).toMatchObject({
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code'],
      redirect_uris: ['https://app.example/cb'],
    });
    expect(registered.scope.split(' ').sort()).toEqual(['contact:write', 'docs:read', 'mcp:invoke']);
  });

  // RFC 7591 section 2: "none" is a public client; it gets no secret (nor an expiry for one).
  it('registers a public client (token_endpoint_auth_method none) without a client_secret', async () => {
    const registered = await client.registerClient({ redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' });
    expect(registered.token_endpoint_auth_method).toBe('none');
    expect(registered).not.toHaveProperty('client_secret');
    expect(registered).not.toHaveProperty('client_secret_expires_at');
  });

  // RFC 7591 section 2: the server ignores metadata it does not understand; application_type is accepted (D6).
  it('ignores unknown metadata and accepts application_type', async () => {
    const registered = await client.registerClient({ redirect_uris: ['com.example.app:/cb'], application_type: 'native', logo_color: 'teal' });
    expect(registered.application_type).toBe('native');
    expect(registered).not.toHaveProperty('logo_color');
  });

  // RFC 7591 section 3.2.1: the requested scope is echoed as registered.
  it('registers only the scope asked for', async () => {
    const registered = await client.registerClient({ grant_types: ['client_credentials'], scope: 'contact:write' });
    expect(registered.scope).toBe('contact:write');
  });
});

describe('redirect URIs at registration (RFC 7591 section 2, RFC 6749 section 3.1.2, RFC 8252 section 7)', () => {
  let api: TestApp;
  let client: OAuthTestClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    client = new OAuthTestClient(api.url);
  });
  afterAll(() => api.close());

  // RFC 7591 section 3.2.2 invalid_redirect_uri; RFC 6749 section 3.1.2 (absolute, no fragment); RFC 8252 section 8.3 (http only on loopback).
  it.each([
    ['http on a host that is not loopback (RFC 8252 section 8.3)', 'http://app.example/callback'],
    ['http on a name that only looks like loopback', 'http://localhost.evil.example/callback'],
    ['a javascript: URI', 'javascript:alert(document.cookie)'],
    ['a data: URI', 'data:text/html,<script>alert(1)</script>'],
    ['a fragment (RFC 6749 section 3.1.2)', 'https://app.example/callback#token'],
    ['a relative reference (RFC 6749 section 3.1.2)', '/callback'],
    ['a private-use scheme without a dot (RFC 8252 section 7.1)', 'myapp:/callback'],
  ])('refuses %s with 400 invalid_redirect_uri', async (_case, uri) => {
    await expectOAuthError(await client.register({ redirect_uris: [uri] }), 400, 'invalid_redirect_uri');
  });

  // RFC 7591 section 2: redirect-based grants need redirect_uris.
  it('refuses the authorization_code grant without redirect_uris', async () => {
    await expectOAuthError(await client.register({ client_name: 'no callback' }), 400, 'invalid_redirect_uri');
  });

  // D6: https; http on loopback (RFC 8252 section 7.3); private-use schemes (section 7.1); MCP client schemes.
  it.each([
    ['https', 'https://app.example/callback?tenant=7'],
    ['http on 127.0.0.1 with a port', 'http://127.0.0.1:8080/callback'],
    ['http on localhost', 'http://localhost/callback'],
    ['http on [::1]', 'http://[::1]:3000/callback'],
    ['a reverse-domain private-use scheme', 'com.example.app:/callback'],
    ['cursor://', 'cursor://anysphere.cursor-retrieval/oauth/callback'],
    ['claude://', 'claude://oauth/callback'],
    ['vscode://', 'vscode://vscode.github-authentication/did-authenticate'],
  ])('accepts %s', async (_case, uri) => {
    const registered = await client.registerClient({ redirect_uris: [uri], token_endpoint_auth_method: 'none' });
    expect(registered.redirect_uris).toEqual([uri]);
  });
});

describe('invalid client metadata (RFC 7591 section 3.2.2)', () => {
  let api: TestApp;
  let client: OAuthTestClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    client = new OAuthTestClient(api.url);
  });
  afterAll(() => api.close());

  const redirect_uris = ['https://app.example/callback'];
  it.each([
    ['an unknown grant type', { redirect_uris, grant_types: ['password'] }],
    ['the implicit grant', { redirect_uris, grant_types: ['implicit'] }],
    ['a public client (none) asking for client_credentials', { grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' }],
    ['an unknown scope', { redirect_uris, scope: 'contact:write admin' }],
    ['an unsupported token_endpoint_auth_method', { redirect_uris, token_endpoint_auth_method: 'private_key_jwt' }],
    ['refresh_token without authorization_code', { grant_types: ['client_credentials', 'refresh_token'] }],
    ['a response type other than code', { redirect_uris, response_types: ['token'] }],
  ])('refuses %s with 400 invalid_client_metadata', async (_case, metadata) => {
    await expectOAuthError(await client.register(metadata), 400, 'invalid_client_metadata');
  });

  // RFC 7591 section 3: the request is a JSON document.
  it('answers 415 to a form-encoded registration', async () => {
    const response = await fetch(`${api.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'client_name=x' });
    await expectOAuthError(response, 415, 'unsupported_media_type');
  });
});
