// A metadata document client_id is no DNS oracle (D19): whatever a host name resolves to, or whether it
// resolves at all, an anonymous caller reads only that the document could not be used, at the authorization
// page, the token endpoint and the revocation endpoint alike; the operator reads the detail in the log, once
// per host and window.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { startAuthorizationServer } from './support/authorization-server.js';
import { documented } from './support/documented-client.js';
import { expectErrorPage, expectOAuthError } from './support/expectations.js';
import { OAuthTestClient } from './support/oauth-client.js';

const REDIRECT = 'https://hosted.example/api/mcp/auth_callback';
const INTERNAL = 'https://internal-name.internal.test/x.json';
const NOWHERE = 'https://nowhere.test/x.json';
// Any IPv4 address, or anything with two colons in a row or three groups of hex digits (IPv6).
const ADDRESS = /\b\d{1,3}(\.\d{1,3}){3}\b|::|\b[0-9a-f]{1,4}(:[0-9a-f]{1,4}){2,}\b/i;

/** A DNS server that knows the names under internal.test (a private address) and nothing else. */
async function internalDns(hostname: string) {
  if (hostname.endsWith('.internal.test')) return [{ address: '10.1.2.3', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
}

describe('a metadata document client_id that names an internal host or no host', () => {
  let api: TestApp;
  let http: OAuthTestClient;
  beforeAll(async () => {
    api = await startAuthorizationServer({}, { resolveHost: internalDns });
    http = new OAuthTestClient(api.url);
  });
  afterAll(() => api.close());

  /** What each endpoint tells an anonymous caller about `clientId`. */
  async function answersAbout(clientId: string): Promise<string[]> {
    const client = documented(clientId, [REDIRECT]);
    const page = await expectErrorPage(await http.openAuthorization(http.authorizationUrl(client).url, { acceptLanguage: 'en' }), 400);
    const form = { grant_type: 'authorization_code', client_id: clientId, code: 'x', redirect_uri: REDIRECT, code_verifier: 'v'.repeat(43) };
    const token = await expectOAuthError(await http.token(form), 401, 'invalid_client');
    const revoke = await expectOAuthError(await http.revoke(client, 'some-token'), 401, 'invalid_client');
    return [page, token.error_description, revoke.error_description];
  }

  it.each([
    ['resolves to a private address', INTERNAL],
    ['does not resolve', NOWHERE],
  ])('when the host %s, answers that the document could not be used, naming no address and no DNS answer', async (_case, clientId) => {
    const [page, ...descriptions] = await answersAbout(clientId);
    expect(page).toContain(`the client ID metadata document ${clientId} could not be used</code>`);
    expect(descriptions).toEqual([`the client ID metadata document ${clientId} could not be used`, `the client ID metadata document ${clientId} could not be used`]);
    for (const answer of [page, ...descriptions]) {
      expect(answer).not.toMatch(ADDRESS);
      expect(answer).not.toMatch(/resolv|ENOTFOUND|getaddrinfo|private|special-use|loopback/i);
    }
  });

  it('writes one warn line per host and window with the detail, however many requests come', async () => {
    const [internal, nowhere] = ['https://logged.internal.test/x.json', 'https://unheard-of.test/x.json'];
    const logged = api.logs.length;
    for (let i = 0; i < 3; i++) {
      await answersAbout(internal);
      await answersAbout(nowhere);
    }
    const warnings = api.logs
      .slice(logged)
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg === 'a client ID metadata document could not be used');
    expect(warnings).toEqual([
      expect.objectContaining({ level: 40, clientId: internal, reason: 'logged.internal.test resolves to 10.1.2.3, a loopback, private or special-use address (RFC 6890)', swallowed: 0 }),
      expect.objectContaining({ level: 40, clientId: nowhere, reason: 'unheard-of.test does not resolve (ENOTFOUND)', swallowed: 0 }),
    ]);
  });
});
