// Clients identified by a client ID metadata document (draft-ietf-oauth-client-id-metadata-document, D13):
// the code flow, refresh rotation, reuse detection and revocation exactly as for registered clients, on
// SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORDS } from '../../src/modules/oauth/consent-i18n.js';
import type { TestApp } from '../support/app.js';
import { clientDocument, startDocumentServer, type DocumentServer } from '../support/metadata-document-server.js';
import { createDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.js';
import { startAuthorizationServer } from './support/authorization-server.js';
import { documented } from './support/documented-client.js';
import { expectErrorPage, expectOAuthError } from './support/expectations.js';
import { OAuthTestClient } from './support/oauth-client.js';

const engines = ['SQLite', ...((await postgresAvailable('test/conformance/client-id-metadata-document.test.ts on PostgreSQL')) ? ['PostgreSQL'] : [])];

describe.each(engines)('a client identified by its metadata document, on %s', (engine) => {
  let host: DocumentServer;
  let database: TestDatabase | undefined;
  let api: TestApp;
  let http: OAuthTestClient;
  beforeAll(async () => {
    host = await startDocumentServer();
    database = engine === 'PostgreSQL' ? await createDatabase() : undefined;
    api = await startAuthorizationServer({ CIMD_ALLOW_PRIVATE_NETWORKS: 'true', ...(database ? { DATABASE_URL: database.url } : {}) }, { metadataDocumentCa: host.cert });
    http = new OAuthTestClient(api.url);
  });
  afterAll(async () => {
    await api.close();
    await host.close();
    await database?.drop();
  });

  /** Publishes a document at `path` describing itself; the client as the test client speaks for it. */
  const publish = (path: string, fields: Record<string, unknown> = {}) => {
    const url = `${host.origin}${path}`;
    const document = clientDocument(url, fields);
    host.publish(path, document);
    return documented(url, document.redirect_uris as string[]);
  };

  // Section 5: the authorization server metadata says so; `none` stays, which public clients need.
  it('is advertised in the authorization server metadata, with the none method', async () => {
    const metadata = await (await fetch(`${api.url}/.well-known/oauth-authorization-server`)).json();
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    expect(metadata.token_endpoint_auth_methods_supported).toContain('none');
  });

  it('completes the code flow without registering, and its token works', async () => {
    const client = publish('/claude.json');
    const tokens = await http.approvedTokens(client);
    expect(tokens).toMatchObject({ scope: 'contact:write mcp:invoke docs:read', resource: api.url, refresh_token: expect.any(String) });
    expect((await http.contact(tokens.access_token, { email: 'documented@example.com' })).status).toBe(200);
    const [stored] = await api.deps.inquiries.list({ limit: 1 });
    expect(stored).toMatchObject({ email: 'documented@example.com', clientId: client.client_id });
    // Nothing was registered: the document is the client.
    expect(await api.deps.oauth.getClient(client.client_id)).toBeUndefined();
  });

  // The MCP authorization spec (2025-11-25, client ID metadata documents): the consent page names the host.
  it('shows the document host first on the consent page, in the visitor language', async () => {
    const client = publish('/consent.json', { client_name: 'Claude' });
    const page = await http.openAuthorization(http.authorizationUrl(client).url, { acceptLanguage: 'ca' });
    const html = await page.text();
    const host = new URL(client.client_id).host;
    expect(html).toContain(`<p class="identity">${WORDS.ca.identifiedBy.replace('{host}', `<strong>${host}</strong>`).replace("'", '&#39;')}</p>`);
    expect(html.indexOf('class="identity"')).toBeLessThan(html.indexOf('<strong>Claude</strong>'));
    expect(html).not.toContain('class="warning"');
  });

  it('warns when every redirect URI is loopback, and matches loopback redirects on any port (RFC 8252 section 7.3)', async () => {
    // Claude Code's document names portless loopback URIs; VS Code's names a port and a device_code grant.
    const client = publish('/claude-code.json', {
      redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      application_type: 'native',
    });
    const redirectUri = 'http://localhost:54127/callback';
    const page = await http.openAuthorization(http.authorizationUrl(client, { redirectUri }).url, { acceptLanguage: 'en' });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('class="warning"');
    expect(html).toContain(WORDS.en.loopbackOnly.split('{host}')[0]);
    const result = await http.authorizeAndConsent(client, { redirectUri });
    expect(result.callback.origin).toBe('http://localhost:54127');
    expect((await http.exchange(client, result)).status).toBe(200);
  });

  it('is served as a public client when its document prefers private_key_jwt and lists none (as ChatGPT publishes)', async () => {
    const client = publish('/chatgpt.json', { token_endpoint_auth_method: 'private_key_jwt', token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'] });
    const tokens = await http.approvedTokens(client);
    expect(tokens.access_token).toEqual(expect.any(String));
  });

  it('never redirects to a URI its document does not list', async () => {
    const client = publish('/strict.json');
    const response = await http.openAuthorization(http.authorizationUrl(client, { redirectUri: 'https://evil.example/callback' }).url);
    expect(await expectErrorPage(response, 400)).toContain(WORDS.es.badRedirect.replace(/'/g, '&#39;'));
  });

  it('rotates refresh tokens, detects reuse and revokes the grant, as for registered clients (D4)', async () => {
    const client = publish('/rotating.json');
    const first = await http.approvedTokens(client);
    const rotated = await (await http.refresh(client, first.refresh_token)).json();
    expect(rotated.refresh_token).toEqual(expect.any(String));
    const next = await (await http.refresh(client, rotated.refresh_token)).json();
    expect(next.access_token).toEqual(expect.any(String));
    // The first refresh token again: replay; the whole grant ends.
    await expectOAuthError(await http.refresh(client, first.refresh_token), 400, 'invalid_grant');
    await expectOAuthError(await http.refresh(client, next.refresh_token), 400, 'invalid_grant');
    expect((await http.contact(next.access_token)).status).toBe(401);
  });

  it('revokes its own tokens (RFC 7009)', async () => {
    const client = publish('/revoking.json');
    const tokens = await http.approvedTokens(client);
    expect((await http.revoke(client, tokens.refresh_token)).status).toBe(200);
    await expectOAuthError(await http.refresh(client, tokens.refresh_token), 400, 'invalid_grant');
    expect((await http.contact(tokens.access_token)).status).toBe(401);
  });

  it('cannot use a code issued to another client', async () => {
    const owner = publish('/owner.json');
    const thief = publish('/thief.json', { redirect_uris: owner.redirect_uris });
    const result = await http.authorizeAndConsent(owner);
    await expectOAuthError(await http.exchange(thief, result), 400, 'invalid_grant');
  });

  it('ignores OpenID words and offline_access in the document and in requests (RFC 6749 section 3.3)', async () => {
    const client = publish('/openid.json', { scope: 'openid profile email mcp:invoke offline_access' });
    const tokens = await http.approvedTokens(client, { scope: 'openid email profile offline_access' });
    expect(tokens).toMatchObject({ scope: 'mcp:invoke', resource: api.url, refresh_token: expect.any(String) });
  });

  it('is fetched once for the whole flow while its document is fresh', async () => {
    const client = publish('/once.json');
    const tokens = await http.approvedTokens(client);
    await http.refresh(client, tokens.refresh_token);
    expect(host.hits.filter((path) => path === '/once.json')).toHaveLength(1);
  });
});
