// The token endpoint's request rules and client authentication (RFC 6749 sections 2.3, 3.2 and 5.2), over raw HTTP.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { discover, insecure, startAuthorizationServer } from './support/authorization-server.js';
import { expectOAuthError } from './support/expectations.js';
import { basic, OAuthTestClient, type RegisteredClient } from './support/oauth-client.js';

describe('token endpoint requests (RFC 6749 section 3.2)', () => {
  let api: TestApp;
  let http: OAuthTestClient;
  let machine: RegisteredClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    http = new OAuthTestClient(api.url);
    machine = await http.registerMachineClient();
  });
  afterAll(() => api.close());
  const auth = () => ({ authorization: basic(machine.client_id, machine.client_secret!) });

  // RFC 6749 section 5.2: a required parameter is missing.
  it('answers invalid_request when grant_type is missing', async () => {
    await expectOAuthError(await http.token({ scope: 'contact:write' }, auth()), 400, 'invalid_request');
  });

  // RFC 6749 section 5.2: unsupported_grant_type.
  it.each(['password', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code', 'toString', '__proto__'])('answers unsupported_grant_type to grant_type=%s', async (grantType) => {
    await expectOAuthError(await http.token({ grant_type: grantType }, auth()), 400, 'unsupported_grant_type');
  });

  // RFC 6749 section 3.2: "Request and response parameters MUST NOT be included more than once."
  it.each([
    ['grant_type', { grant_type: ['client_credentials', 'client_credentials'] }],
    ['scope', { grant_type: 'client_credentials', scope: ['contact:write', 'docs:read'] }],
    ['client_id', { grant_type: 'client_credentials', client_id: ['one-client', 'another-client'] }],
  ])('answers invalid_request when %s is repeated', async (_name, form) => {
    await expectOAuthError(await http.token(form, auth()), 400, 'invalid_request');
  });

  // RFC 6749 section 3.2: the endpoint takes POST only.
  it('answers 405 with Allow to GET', async () => {
    const response = await fetch(`${api.url}/oauth/token?grant_type=client_credentials`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('POST');
  });

  // RFC 6749 section 3.2: the body is application/x-www-form-urlencoded.
  it('answers 415 to a text/plain body', async () => {
    const response = await fetch(`${api.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'text/plain', ...auth() }, body: 'grant_type=client_credentials' });
    await expectOAuthError(response, 415, 'unsupported_media_type');
  });
});

describe('client authentication at the token endpoint (RFC 6749 sections 2.3 and 5.2)', () => {
  let api: TestApp;
  let as: oauth.AuthorizationServer;
  let http: OAuthTestClient;
  let machine: RegisteredClient;
  let poster: RegisteredClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    as = await discover(api);
    http = new OAuthTestClient(api.url);
    machine = await http.registerMachineClient();
    poster = await http.registerMachineClient({ token_endpoint_auth_method: 'client_secret_post' });
  });
  afterAll(() => api.close());
  const grant = { grant_type: 'client_credentials' };

  const expectInvalidClient = async (response: Response) => {
    await expectOAuthError(response, 401, 'invalid_client');
    // RFC 6749 section 5.2: 401 with a WWW-Authenticate challenge matching the scheme the client used.
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
  };

  // RFC 6749 section 2.3.1: each part is application/x-www-form-urlencoded before base64.
  it('accepts correctly encoded HTTP Basic credentials', async () => {
    expect((await http.token(grant, { authorization: basic(machine.client_id, machine.client_secret!) })).status).toBe(200);
  });

  // RFC 6749 section 2.3.1 (and Appendix B): the server form-urldecodes each part, so %XX escapes decode.
  it('decodes percent-escapes in the Basic user name and password', async () => {
    const escape = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
    const header = `Basic ${Buffer.from(`${escape(machine.client_id)}:${escape(machine.client_secret!)}`).toString('base64')}`;
    expect((await http.token(grant, { authorization: header })).status).toBe(200);
  });

  // RFC 7617 section 2: the Basic scheme name is case-insensitive.
  it('accepts the scheme name in any case', async () => {
    const header = basic(machine.client_id, machine.client_secret!).replace('Basic', 'bAsIc');
    expect((await http.token(grant, { authorization: header })).status).toBe(200);
  });

  // RFC 6749 section 5.2: failed authentication is 401 invalid_client with WWW-Authenticate.
  it('answers 401 invalid_client with WWW-Authenticate: Basic to a wrong secret in HTTP Basic', async () => {
    await expectInvalidClient(await http.token(grant, { authorization: basic(machine.client_id, 'wrong-secret') }));
  });

  it('answers 401 invalid_client to a wrong client_secret in the form', async () => {
    await expectInvalidClient(await http.tokenAs(poster, grant, 'wrong-secret'));
  });

  it('answers 401 invalid_client to an unknown client', async () => {
    await expectInvalidClient(await http.token(grant, { authorization: basic('no-such-client', 'secret') }));
  });

  it('answers 401 invalid_client when no credentials are sent', async () => {
    await expectInvalidClient(await http.token(grant));
  });

  it.each([
    ['not base64', 'Basic !!!not-base64!!!'],
    ['without a colon', `Basic ${Buffer.from('just-a-client-id').toString('base64')}`],
    ['with an empty token', 'Basic '],
    ['with a broken percent-escape', `Basic ${Buffer.from('%E0%A4%A:secret').toString('base64')}`],
    ['with another scheme', 'Bearer abc'],
  ])('answers 401 invalid_client to a malformed Authorization header (%s)', async (_case, header) => {
    await expectInvalidClient(await http.token(grant, { authorization: header }));
  });

  // RFC 6749 section 2.3: "The client MUST NOT use more than one authentication method in each request."
  it('answers invalid_request to HTTP Basic and client_secret together', async () => {
    const form = { ...grant, client_secret: machine.client_secret! };
    await expectOAuthError(await http.token(form, { authorization: basic(machine.client_id, machine.client_secret!) }), 400, 'invalid_request');
  });

  // RFC 6749 section 2.3.1: a confidential client must authenticate; its client_id alone is not enough.
  it('answers 401 invalid_client to a confidential client sending only its client_id', async () => {
    await expectInvalidClient(await http.token({ ...grant, client_id: machine.client_id }));
  });

  // oauth4webapi surfaces the 401 challenge before the body: a strict client sees WWW-Authenticate.
  it('lets oauth4webapi see the Basic challenge of a failed authentication', async () => {
    const response = await oauth.clientCredentialsGrantRequest(as, { client_id: machine.client_id }, oauth.ClientSecretBasic('wrong'), {}, insecure);
    await expect(oauth.processClientCredentialsResponse(as, { client_id: machine.client_id }, response)).rejects.toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
  });
});

describe('token parameters sent without a value (RFC 6749 section 3.2)', () => {
  let api: TestApp;
  let http: OAuthTestClient;
  let machine: RegisteredClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    http = new OAuthTestClient(api.url);
    machine = await http.registerMachineClient({ scope: 'contact:write docs:read' });
  });
  afterAll(() => api.close());
  const auth = () => ({ authorization: basic(machine.client_id, machine.client_secret!) });
  const expectGranted = async (response: Response) => {
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body;
  };

  // Section 3.2: "Parameters sent without a value MUST be treated as if they were omitted from the request."
  it('treats an empty scope as omitted: the registered scope is granted', async () => {
    expect((await expectGranted(await http.token({ grant_type: 'client_credentials', scope: '' }, auth()))).scope).toBe('contact:write docs:read');
  });

  it('treats an empty resource as omitted: the token is for the API as a whole', async () => {
    expect((await expectGranted(await http.token({ grant_type: 'client_credentials', resource: '' }, auth()))).resource).toBe(api.url);
  });

  it('treats an empty client_secret next to HTTP Basic as omitted, not as a second authentication method', async () => {
    await expectGranted(await http.token({ grant_type: 'client_credentials', client_secret: '' }, auth()));
  });

  it('treats an empty client_id next to HTTP Basic as omitted', async () => {
    await expectGranted(await http.token({ grant_type: 'client_credentials', client_id: '' }, auth()));
  });
});

describe('the OAuth endpoints from a browser on another origin (D10)', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startAuthorizationServer();
  });
  afterAll(() => api.close());

  // D10: token, register and revoke use no cookies, so any origin may call them (browser-based MCP clients).
  it.each(['/oauth/token', '/oauth/register', '/oauth/revoke'])('lets any origin call %s (preflight 204, Allow-Origin *)', async (path) => {
    const response = await fetch(`${api.url}${path}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
  });

  // RFC 6749 section 10.12: the consent endpoint relies on a browser cookie, so no other origin may read it.
  it('does not open /oauth/authorize to other origins', async () => {
    const response = await fetch(`${api.url}/oauth/authorize?client_id=x`, { headers: { origin: 'https://evil.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});
