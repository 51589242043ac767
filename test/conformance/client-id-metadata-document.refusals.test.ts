// Documents that cannot be used (draft-ietf-oauth-client-id-metadata-document sections 3, 4 and 6, D13):
// each stops the authorization on our own page, is refused at the token endpoint, and stores nothing. A
// document from a private address (the loopback host here) is refused without a reason (D19): the
// operator reads it in the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORDS } from '../../src/modules/oauth/consent-i18n.js';
import { REFUSAL_LOG_WINDOW_MS } from '../../src/modules/oauth/metadata-documents.js';
import { startApp, type TestApp } from '../support/app.js';
import { clientDocument, startDocumentServer, type DocumentServer } from '../support/metadata-document-server.js';
import { movableClock, startAuthorizationServer } from './support/authorization-server.js';
import { documented, oauthRows } from './support/documented-client.js';
import { expectErrorPage, expectOAuthError } from './support/expectations.js';
import { OAuthTestClient } from './support/oauth-client.js';

const REDIRECT = 'https://hosted.example/api/mcp/auth_callback';
const escaped = (text: string) => text.replace(/'/g, '&#39;').replace(/"/g, '&quot;');

describe('a client ID metadata document that cannot be used', () => {
  let host: DocumentServer;
  let api: TestApp;
  let http: OAuthTestClient;
  const clock = movableClock();
  beforeAll(async () => {
    host = await startDocumentServer();
    api = await startAuthorizationServer({ CIMD_ALLOW_PRIVATE_NETWORKS: 'true', CIMD_FETCH_TIMEOUT: '500ms' }, { metadataDocumentCa: host.cert, clock });
    http = new OAuthTestClient(api.url);
  });
  afterAll(async () => {
    await api.close();
    await host.close();
  });

  /**
   * The authorization request stops on an error page saying `reason`; the token endpoint refuses; nothing is
   * stored. Returns what the page and the token endpoint said.
   */
  async function expectRefused(clientId: string, reason: string): Promise<string[]> {
    const client = documented(clientId, [REDIRECT]);
    const html = await expectErrorPage(await http.openAuthorization(http.authorizationUrl(client).url, { acceptLanguage: 'en' }), 400);
    expect(html).toContain(escaped(WORDS.en.badMetadata));
    const detail = /<code>([^<]*)<\/code>/.exec(html)?.[1] ?? '';
    expect(detail).toContain(escaped(reason));
    const refused = await http.token({ grant_type: 'authorization_code', client_id: clientId, code: 'x', redirect_uri: REDIRECT, code_verifier: 'v'.repeat(43) });
    // RFC 6749 section 5.2: a 401 invalid_client carries the challenge, as for any other failed client authentication.
    expect(refused.headers.get('www-authenticate')).toBe('Basic realm="portico", charset="UTF-8"');
    const token = await expectOAuthError(refused, 401, 'invalid_client');
    expect(token.error_description).toContain(reason);
    expect(await oauthRows(api)).toBe(0);
    return [detail, escaped(token.error_description)];
  }

  /**
   * A document from the loopback host, a private address: refused as above, the caller told only that it could
   * not be used, and `reason` written once to the log at warn, for the authorization and the token request alike.
   */
  async function expectUnusable(clientId: string, reason: string | RegExp) {
    // One line per host and window: each case opens a window of its own.
    clock.advance(REFUSAL_LOG_WINDOW_MS / 1000);
    const logged = api.logs.length;
    const told = `the client ID metadata document ${clientId} could not be used`;
    expect(await expectRefused(clientId, told)).toEqual([escaped(told), escaped(told)]);
    const warnings = api.logs
      .slice(logged)
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg === 'a client ID metadata document could not be used');
    expect(warnings).toEqual([expect.objectContaining({ level: 40, host: '127.0.0.1', clientId, swallowed: expect.any(Number) })]);
    if (typeof reason === 'string') expect(warnings[0].reason).toContain(reason);
    else expect(warnings[0].reason).toMatch(reason);
  }
  const at = (path: string) => `${host.origin}${path}`;
  const publish = (path: string, fields: Record<string, unknown>) => host.publish(path, { ...clientDocument(at(path)), ...fields });

  it('too big', async () => {
    const url = host.route('/big.json', (_q, r) => r.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...clientDocument(at('/big.json')), logo: 'x'.repeat(6000) })));
    await expectUnusable(url, 'the document is larger than 5120 bytes');
  });

  it('redirecting', async () => {
    publish('/real.json', {});
    const url = host.route('/moved.json', (_q, r) => r.writeHead(301, { location: at('/real.json') }).end());
    await expectUnusable(url, 'the server answered HTTP 301; redirects are not followed');
  });

  it('slow', async () => {
    await expectUnusable(
      host.route('/slow.json', () => {}),
      'no answer within 500 ms',
    );
  });

  it('not JSON', async () => {
    await expectUnusable(
      host.route('/challenge', (_q, r) => r.writeHead(200, { 'content-type': 'text/html' }).end('<p>Just a moment...</p>')),
      'the answer is text/html, not application/json',
    );
    await expectUnusable(
      host.route('/broken.json', (_q, r) => r.writeHead(200, { 'content-type': 'application/json' }).end('{')),
      'the document is not valid JSON',
    );
    await expectUnusable(host.publish('/list.json', [clientDocument(at('/list.json'))]), 'it is not a JSON object');
  });

  it('with a client_id other than its URL (a simple string comparison)', async () => {
    await expectUnusable(publish('/other.json', { client_id: at('/another.json') }), `its client_id ("${at('/another.json')}") is not the URL it was fetched from`);
    // The same document served at a URL spelled differently is another identifier.
    publish('/spelled.json', {});
    await expectUnusable(`${at('/spelled.json')}?`, 'is not the URL it was fetched from');
  });

  it('carrying a secret or a shared-secret method', async () => {
    await expectUnusable(publish('/secret.json', { client_secret: 's3cret' }), 'it contains client_secret');
    await expectUnusable(publish('/basic.json', { token_endpoint_auth_method: 'client_secret_basic' }), 'client_secret_basic needs a shared secret');
    await expectUnusable(publish('/jwt-only.json', { token_endpoint_auth_method: 'private_key_jwt' }), 'private_key_jwt is not supported here');
  });

  it('without a name or redirect URIs, or with a redirect URI no client may use', async () => {
    await expectUnusable(publish('/no-redirects.json', { redirect_uris: undefined }), 'redirect_uris is required');
    await expectUnusable(publish('/empty-redirects.json', { redirect_uris: [] }), 'redirect_uris is required');
    await expectUnusable(publish('/no-name.json', { client_name: undefined }), 'client_name is required');
    await expectUnusable(publish('/control-name.json', { client_name: 'Acme\u009b31m' }), 'client_name must be a single line without control characters');
    await expectUnusable(publish('/http-redirect.json', { redirect_uris: ['http://hosted.example/cb'] }), 'http is allowed only on loopback');
    await expectUnusable(publish('/no-code.json', { grant_types: ['client_credentials'] }), 'grant_types must include authorization_code');
  });

  it('unreachable, or gone', async () => {
    await expectUnusable('https://127.0.0.1:1/client.json', 'the server could not be reached (ECONNREFUSED)');
    await expectUnusable(at('/nothing-here.json'), 'the server answered HTTP 404, not 200');
  });

  it.each([
    ['https://hosted.example', 'it must contain a path'],
    ['https://hosted.example/', 'it must contain a path'],
    ['https://hosted.example/a/../client.json', 'it must not contain . or .. path segments'],
    ['https://hosted.example/a/%2E%2E/client.json', 'it must not contain . or .. path segments'],
    ['https://hosted.example/client.json#x', 'it must not contain a fragment'],
    ['https://user:pw@hosted.example/client.json', 'it must not contain a user name or password'],
    ['https://hosted.example/client json', 'it must not contain spaces'],
  ])('named by an identifier that is not a valid client ID URL: %s', async (clientId, reason) => {
    const before = host.hits.length;
    await expectRefused(clientId, reason);
    expect(host.hits.length).toBe(before);
  });
});

describe('client ID metadata document settings', () => {
  let host: DocumentServer;
  beforeAll(async () => {
    host = await startDocumentServer();
  });
  afterAll(() => host.close());

  const request = (api: TestApp, path: string) => {
    const url = host.publish(path, clientDocument(`${host.origin}${path}`));
    const http = new OAuthTestClient(api.url);
    return http.openAuthorization(http.authorizationUrl(documented(url, [REDIRECT])).url, { acceptLanguage: 'en' });
  };

  it('keeps the SSRF guard on by default: a document on loopback is refused, and nothing is fetched', async () => {
    const api = await startApp({ RATE_LIMITS: 'off' }, { metadataDocumentCa: host.cert });
    try {
      const html = await expectErrorPage(await request(api, '/guarded.json'), 400);
      expect(html).toContain(`the client ID metadata document ${host.origin}/guarded.json could not be used</code>`);
      expect(api.logs.join('')).toContain('127.0.0.1 resolves to 127.0.0.1, a loopback, private or special-use address (RFC 6890)');
      expect(host.hits).not.toContain('/guarded.json');
      expect(api.logs.join('')).not.toContain('CIMD_ALLOW_PRIVATE_NETWORKS');
    } finally {
      await api.close();
    }
  });

  it('warns at start when CIMD_ALLOW_PRIVATE_NETWORKS=true', async () => {
    const api = await startApp({ CIMD_ALLOW_PRIVATE_NETWORKS: 'true' });
    try {
      const warning = api.logs.map((line) => JSON.parse(line)).find((line) => line.msg.startsWith('CIMD_ALLOW_PRIVATE_NETWORKS=true'));
      expect(warning).toMatchObject({ level: 40 });
    } finally {
      await api.close();
    }
  });

  it('fetches only from CIMD_ALLOWED_HOSTS when set, and never from CIMD_DENIED_HOSTS', async () => {
    const allowedElsewhere = await startApp({ CIMD_ALLOW_PRIVATE_NETWORKS: 'true', CIMD_ALLOWED_HOSTS: 'claude.ai,vscode.dev' }, { metadataDocumentCa: host.cert });
    const denied = await startApp({ CIMD_ALLOW_PRIVATE_NETWORKS: 'true', CIMD_DENIED_HOSTS: '127.0.0.1' }, { metadataDocumentCa: host.cert });
    try {
      for (const api of [allowedElsewhere, denied]) {
        expect(await expectErrorPage(await request(api, '/listed.json'), 400)).toContain('client ID metadata documents from 127.0.0.1 are not accepted by this server');
      }
      expect(host.hits).not.toContain('/listed.json');
    } finally {
      await allowedElsewhere.close();
      await denied.close();
    }
  });

  it('with CIMD=off, advertises nothing and treats a URL client_id as an unknown client', async () => {
    const api = await startApp({ CIMD: 'off', CIMD_ALLOW_PRIVATE_NETWORKS: 'true' }, { metadataDocumentCa: host.cert });
    try {
      const metadata = await (await fetch(`${api.url}/.well-known/oauth-authorization-server`)).json();
      expect(metadata).not.toHaveProperty('client_id_metadata_document_supported');
      expect(await expectErrorPage(await request(api, '/off.json'), 400)).toContain(escaped(WORDS.en.unknownClient));
      expect(host.hits).not.toContain('/off.json');
    } finally {
      await api.close();
    }
  });
});
