// The client_credentials grant (RFC 6749 section 4.4) driven by oauth4webapi, with scope (D5) and resource (RFC 8707) rules.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { discover, insecure, startAuthorizationServer } from './support/authorization-server.js';
import { expectOAuthError } from './support/expectations.js';
import { OAuthTestClient, type RegisteredClient } from './support/oauth-client.js';

describe('client_credentials with a strict client (RFC 6749 section 4.4)', () => {
  let api: TestApp;
  let as: oauth.AuthorizationServer;
  let http: OAuthTestClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    as = await discover(api);
    http = new OAuthTestClient(api.url);
  });
  afterAll(() => api.close());

  const registerStrict = async (method: 'client_secret_basic' | 'client_secret_post', scope?: string) => {
    const metadata = { client_name: `cc ${method}`, grant_types: ['client_credentials'], token_endpoint_auth_method: method, ...(scope ? { scope } : {}) };
    const registered = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, metadata, insecure));
    const auth = method === 'client_secret_basic' ? oauth.ClientSecretBasic(registered.client_secret as string) : oauth.ClientSecretPost(registered.client_secret as string);
    return { client: registered as oauth.Client, auth };
  };
  const requestToken = async (method: 'client_secret_basic' | 'client_secret_post', parameters: Record<string, string> = {}, scope?: string) => {
    const { client, auth } = await registerStrict(method, scope);
    return { client, response: await oauth.clientCredentialsGrantRequest(as, client, auth, parameters, insecure) };
  };

  // RFC 6749 sections 2.3.1 and 4.4.3; RFC 8707 section 2.2: the response names the resource the token is for.
  it('issues a Bearer token to a client authenticating with HTTP Basic (client_secret_basic)', async () => {
    const { client, response } = await requestToken('client_secret_basic', { scope: 'contact:write' });
    const tokens = await oauth.processClientCredentialsResponse(as, client, response);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'contact:write', resource: api.url });
    // D4: opaque, 256 random bits (43 base64url characters) after the 12-hex-digit issue time; an RFC 6750 b64token.
    expect(tokens.access_token).toMatch(/^[0-9a-f]{12}[A-Za-z0-9_-]{43}$/);
  });

  // RFC 6749 section 2.3.1: client_id and client_secret in the request body.
  it('issues a Bearer token to a client authenticating in the form (client_secret_post)', async () => {
    const { client, response } = await requestToken('client_secret_post', { scope: 'mcp:invoke' });
    const tokens = await oauth.processClientCredentialsResponse(as, client, response);
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'mcp:invoke' });
  });

  // RFC 6749 section 4.4.3: "A refresh token SHOULD NOT be included."
  it('issues no refresh token', async () => {
    const { client, response } = await requestToken('client_secret_basic');
    expect((await oauth.processClientCredentialsResponse(as, client, response)).refresh_token).toBeUndefined();
  });

  // RFC 6749 section 5.1: Cache-Control: no-store and Pragma: no-cache on every token response.
  it('answers with Cache-Control: no-store and Pragma: no-cache', async () => {
    const { response } = await requestToken('client_secret_basic');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('pragma')).toBe('no-cache');
  });

  // RFC 6749 section 3.3 and D5: no scope requested means the registered scope.
  it('grants the registered scope when none is requested', async () => {
    const { client, response } = await requestToken('client_secret_basic', {}, 'contact:write docs:read');
    expect((await oauth.processClientCredentialsResponse(as, client, response)).scope).toBe('contact:write docs:read');
  });

  // RFC 6749 sections 3.3 and 5.2: a scope beyond the registered one is invalid_scope, which the strict client reads.
  it('answers invalid_scope to a scope beyond the registered one', async () => {
    const { client, response } = await requestToken('client_secret_basic', { scope: 'mcp:invoke' }, 'contact:write');
    await expect(oauth.processClientCredentialsResponse(as, client, response)).rejects.toMatchObject({ error: 'invalid_scope', status: 400 });
  });

  // RFC 8707 section 2: a resource the server does not know is invalid_target.
  it('answers invalid_target to an unknown resource', async () => {
    const { client, response } = await requestToken('client_secret_post', { resource: 'https://elsewhere.example/api' });
    await expect(oauth.processClientCredentialsResponse(as, client, response)).rejects.toMatchObject({ error: 'invalid_target', status: 400 });
  });

  // RFC 8707 sections 2 and 2.2: a known resource is accepted and echoed.
  it('binds the token to the requested resource and echoes it', async () => {
    const { client, response } = await requestToken('client_secret_basic', { resource: `${api.url}/api/contact`, scope: 'contact:write' });
    expect((await oauth.processClientCredentialsResponse(as, client, response)).resource).toBe(`${api.url}/api/contact`);
  });

  // RFC 8707 section 2: several resource parameters are allowed; a server that binds a token to one resource
  // answers invalid_target (not invalid_request, as for a duplicated parameter of RFC 6749 section 3.2).
  it('answers invalid_target, not invalid_request, to two resource parameters', async () => {
    const machine = await http.registerMachineClient();
    const response = await http.tokenAs(machine, { grant_type: 'client_credentials', resource: [`${api.url}/api/contact`, `${api.url}/mcp`] });
    await expectOAuthError(response, 400, 'invalid_target');
  });

  // RFC 6749 section 5.2 unauthorized_client: the grant type is not one the client registered.
  it('answers unauthorized_client to a client registered only for authorization_code', async () => {
    const web = await http.registerWebClient({ grant_types: ['authorization_code'] });
    await expectOAuthError(await http.tokenAs(web, { grant_type: 'client_credentials' }), 400, 'unauthorized_client');
  });
});

describe('scope at the token endpoint (RFC 6749 section 3.3, D5)', () => {
  let api: TestApp;
  let http: OAuthTestClient;
  let machine: RegisteredClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    http = new OAuthTestClient(api.url);
    machine = await http.registerMachineClient({ scope: 'contact:write docs:read' });
  });
  afterAll(() => api.close());

  it.each([
    ['a scope the client did not register', 'mcp:invoke'],
    ['a scope that does not exist', 'admin'],
    ['a mix of registered and unknown scopes', 'contact:write admin'],
  ])('answers invalid_scope to %s', async (_case, scope) => {
    await expectOAuthError(await http.tokenAs(machine, { grant_type: 'client_credentials', scope }), 400, 'invalid_scope');
  });

  it('grants a narrower scope than registered', async () => {
    const response = await http.tokenAs(machine, { grant_type: 'client_credentials', scope: 'docs:read' });
    expect((await response.json()).scope).toBe('docs:read');
  });
});
