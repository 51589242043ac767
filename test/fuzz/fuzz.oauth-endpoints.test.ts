// /oauth/register, /oauth/token and /oauth/revoke under fuzzed forms and JSON: RFC error codes in the Error body, never a 5xx.
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { anyJson, exchange, expectHealthy, expectPrototypeClean, expectWellFormed, hostileString, runs, startFuzzApp, type Answer } from './fuzz-support.js';

const FORM = 'application/x-www-form-urlencoded';
const SCOPES = ['contact:write', 'mcp:invoke', 'docs:read'];
/** Names every object inherits: a scope check written as `name in SCOPES` would take them for scopes. */
const INHERITED = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'propertyIsEnumerable'];
const TOKEN_CODES = ['invalid_request', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'invalid_target', 'invalid_client'];

interface Registered {
  client_id: string;
  client_secret?: string;
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
/** Unknown scope tokens: inherited member names and plain unknown words. */
const unknownScope = fc.oneof(
  fc.constantFrom(...INHERITED),
  fc.stringMatching(/^[a-z_:]{1,14}$/).filter((word) => !SCOPES.includes(word)),
);

describe('the OAuth endpoints under fuzzing', () => {
  let api: TestApp;
  let confidential: Registered;
  let publicClient: Registered;
  let accessToken: string;
  const send = (path: string, body: string, type: string, headers: Record<string, string> = {}) => exchange(api.url, { method: 'POST', path, headers: { 'content-type': type, ...headers }, body });
  const register = async (metadata: unknown) => JSON.parse((await send('/oauth/register', JSON.stringify(metadata), 'application/json')).text);

  beforeAll(async () => {
    api = await startFuzzApp();
    confidential = await register({ grant_types: ['authorization_code', 'client_credentials', 'refresh_token'], redirect_uris: ['https://client.example/cb'] });
    publicClient = await register({ token_endpoint_auth_method: 'none', redirect_uris: ['http://127.0.0.1/cb'] });
    const issued = await send('/oauth/token', 'grant_type=client_credentials', FORM, { authorization: basic(confidential.client_id, confidential.client_secret!) });
    accessToken = JSON.parse(issued.text).access_token;
  });
  afterEach(async () => {
    await expectHealthy(api);
    expectPrototypeClean();
  });
  afterAll(() => api.close());

  const expectTokenAnswer = (answer: Answer, context: string) => {
    const json = expectWellFormed('/oauth/token', answer, 'POST');
    expect([200, 400, 401], context).toContain(answer.status);
    expect(answer.headers.get('cache-control'), context).toBe('no-store');
    if (answer.status === 200) expect(json, context).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600 });
    else expect(TOKEN_CODES, context).toContain(json.error);
    if (answer.status === 401) expect(answer.headers.get('www-authenticate'), context).toMatch(/^Basic /);
  };

  it('answers any token request form (known and unknown names, repeats, hostile values, any credentials) 200, 400 or 401 with RFC 6749 codes', async () => {
    const values: Record<string, fc.Arbitrary<string>> = {
      grant_type: fc.oneof(fc.constantFrom('client_credentials', 'authorization_code', 'refresh_token', 'password', 'implicit', 'constructor', '__proto__'), hostileString(3)),
      client_id: fc.oneof(fc.constantFrom(confidential.client_id, publicClient.client_id), hostileString(3)),
      client_secret: fc.oneof(fc.constant(confidential.client_secret!), hostileString(3)),
      scope: fc.oneof(
        fc.subarray(SCOPES).map((s) => s.join(' ')),
        unknownScope,
        hostileString(3),
      ),
      resource: fc.oneof(fc.constantFrom(`${api.url}/api/contact`, `${api.url}/mcp`, api.url, 'https://evil.example'), hostileString(3)),
    };
    // Object.hasOwn: the names include __proto__ and constructor, which every object literal answers to.
    const value = (name: string) => (Object.hasOwn(values, name) ? values[name]! : hostileString(4));
    const names = fc.constantFrom('grant_type', 'client_id', 'client_secret', 'scope', 'resource', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', '__proto__', 'constructor', 'x');
    const pairs = fc.array(
      names.chain((name) => value(name).map((v) => [name, v] as [string, string])),
      { maxLength: 7 },
    );
    const authorization = fc.oneof(
      fc.constant(undefined),
      fc.constant(basic(confidential.client_id, confidential.client_secret!)),
      // Not form-encoded first: the server must cope with stray % escapes and lone surrogates in the decoded text.
      fc.tuple(hostileString(3), hostileString(3)).map(([id, secret]) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`),
      fc.stringMatching(/^(Basic|Bearer|basic) ?[\x21-\x7e]{0,40}$/),
    );
    await fc.assert(
      fc.asyncProperty(pairs, authorization, async (form, auth) => {
        const body = new URLSearchParams(form).toString();
        const answer = await send('/oauth/token', body, FORM, auth === undefined ? {} : { authorization: auth });
        expectTokenAnswer(answer, `${body} ${auth ?? ''} -> ${answer.status} ${answer.text}`);
      }),
      runs(150),
    );
  });

  it('answers a JSON token request with any type in any field 400 or 401, never a 5xx', async () => {
    const fields = fc.dictionary(fc.constantFrom('grant_type', 'client_id', 'client_secret', 'scope', 'resource', 'code', 'refresh_token', 'code_verifier'), anyJson, { maxKeys: 5 });
    await fc.assert(
      fc.asyncProperty(fields, fc.boolean(), async (body, authenticated) => {
        const headers: Record<string, string> = authenticated ? { authorization: basic(confidential.client_id, confidential.client_secret!) } : {};
        const answer = await send('/oauth/token', JSON.stringify(body), 'application/json', headers);
        expectTokenAnswer(answer, `${JSON.stringify(body)} -> ${answer.status} ${answer.text}`);
      }),
      runs(100),
    );
  });

  it('refuses a scope holding any unknown token, inherited member names included, at registration and at the token endpoint (D5)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.subarray(SCOPES), unknownScope, fc.nat(), async (known, unknown, at) => {
        const tokens = [...known];
        tokens.splice(at % (tokens.length + 1), 0, unknown);
        const scope = tokens.join(' ');
        const registration = await send('/oauth/register', JSON.stringify({ grant_types: ['client_credentials'], scope }), 'application/json');
        const registered = expectWellFormed('/oauth/register', registration, 'POST');
        expect([registration.status, registered.error], `register scope "${scope}" -> ${registration.text}`).toEqual([400, 'invalid_client_metadata']);
        const token = await send('/oauth/token', new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(), FORM, {
          authorization: basic(confidential.client_id, confidential.client_secret!),
        });
        const issued = expectWellFormed('/oauth/token', token, 'POST');
        expect([token.status, issued.error], `token scope "${scope}" -> ${token.text}`).toEqual([400, 'invalid_scope']);
      }),
      runs(60),
    );
  });

  it('answers any registration metadata 201 with the credentials or 400 invalid_client_metadata / invalid_redirect_uri', async () => {
    const redirectUri = fc.oneof(
      fc.constantFrom(
        'https://client.example/cb',
        'http://127.0.0.1:8080/cb',
        'http://localhost/cb',
        'http://[::1]/cb',
        'com.example.app:/cb',
        'cursor://cb',
        'http://evil.example/cb',
        'javascript:alert(1)',
        'https://a.example/cb#frag',
        'data:text/html,x',
        '//no-scheme',
        '',
      ),
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      hostileString(4),
    );
    const metadata = fc.record(
      {
        client_name: fc.oneof(hostileString(), fc.constant('c'.repeat(201)), anyJson),
        redirect_uris: fc.oneof(fc.array(redirectUri, { maxLength: 3 }), fc.array(fc.constant('https://client.example/cb'), { minLength: 21, maxLength: 22 }), anyJson),
        grant_types: fc.oneof(fc.subarray(['authorization_code', 'client_credentials', 'refresh_token']), fc.array(hostileString(2), { maxLength: 2 }), anyJson),
        token_endpoint_auth_method: fc.oneof(fc.constantFrom('client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt', 'toString'), anyJson),
        scope: fc.oneof(
          fc.subarray(SCOPES).map((s) => s.join(' ')),
          hostileString(3),
          anyJson,
        ),
        application_type: fc.oneof(fc.constantFrom('web', 'native', 'browser'), anyJson),
        response_types: fc.oneof(fc.constant(['code']), fc.array(hostileString(2), { maxLength: 2 }), anyJson),
        software_id: anyJson,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(metadata, async (body) => {
        const answer = await send('/oauth/register', JSON.stringify(body), 'application/json');
        const context = `${JSON.stringify(body)} -> ${answer.status} ${answer.text.slice(0, 300)}`;
        const json = expectWellFormed('/oauth/register', answer, 'POST');
        expect([201, 400], context).toContain(answer.status);
        expect(answer.headers.get('cache-control'), context).toBe('no-store');
        if (answer.status === 400) {
          // The JSON parser refuses prototype-pollution keys at any depth as malformed JSON (docs/security.md).
          const codes = /"(__proto__|constructor)"/.test(JSON.stringify(body))
            ? ['invalid_request', 'invalid_client_metadata', 'invalid_redirect_uri']
            : ['invalid_client_metadata', 'invalid_redirect_uri'];
          expect(codes, context).toContain(json.error);
          return;
        }
        expect(typeof json.client_id, context).toBe('string');
        expect(json.token_endpoint_auth_method === 'none' ? json.client_secret : typeof json.client_secret, context).toBe(json.token_endpoint_auth_method === 'none' ? undefined : 'string');
      }),
      runs(150),
    );
  });

  it('answers any revocation request 200, 400 invalid_request or 401 invalid_client, never a 5xx (RFC 7009)', async () => {
    const field = fc.oneof(fc.constantFrom(accessToken, confidential.client_id, confidential.client_secret!, publicClient.client_id), hostileString(3), anyJson);
    const body = fc.dictionary(fc.constantFrom('token', 'token_type_hint', 'client_id', 'client_secret', '__proto__', 'x'), field, { maxKeys: 4 });
    const encoding = fc.constantFrom('json', 'form');
    const authorization = fc.option(fc.oneof(fc.constant(basic(publicClient.client_id, 'x')), fc.stringMatching(/^Basic [\x21-\x7e]{0,30}$/)), { freq: 2 });
    await fc.assert(
      fc.asyncProperty(body, encoding, authorization, async (fields, as, auth) => {
        const text =
          as === 'json' ? JSON.stringify(fields) : new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : (JSON.stringify(v) ?? '')])).toString();
        const answer = await send('/oauth/revoke', text, as === 'json' ? 'application/json' : FORM, auth === null ? {} : { authorization: auth });
        const context = `${as} ${text} ${auth ?? ''} -> ${answer.status} ${answer.text}`;
        const json = expectWellFormed('/oauth/revoke', answer, 'POST');
        expect([200, 400, 401], context).toContain(answer.status);
        if (answer.status === 400) expect(json.error, context).toBe('invalid_request');
        if (answer.status === 401) expect(json.error, context).toBe('invalid_client');
      }),
      runs(120),
    );
  });
});
