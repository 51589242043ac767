// `portico clients list|revoke`: registered clients seen from the CLI, and a revoke that ends their tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documented } from '../conformance/support/documented-client.js';
import { OAuthTestClient } from '../conformance/support/oauth-client.js';
import { freePort, startApp, type TestApp } from '../support/app.js';
import { clientDocument, startDocumentServer, type DocumentServer } from '../support/metadata-document-server.js';
import { lines, workspace, type Workspace } from './cli-harness.js';

describe('portico clients', () => {
  let ws: Workspace;
  let api: TestApp;
  let clientId: string;
  let clientSecret: string;
  let accessToken: string;

  beforeAll(async () => {
    ws = await workspace();
    api = await startApp({ DATABASE_URL: ws.env.DATABASE_URL!, RATE_LIMITS: 'off' }, { dir: ws.dir });
    const registered = await api.post('/oauth/register', { client_name: 'Nightly sync', grant_types: ['client_credentials'], scope: 'contact:write' });
    ({ client_id: clientId, client_secret: clientSecret } = await registered.json());
    const token = await fetch(`${api.url}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    accessToken = (await token.json()).access_token;
  });
  afterAll(async () => {
    await api.close();
    await ws.remove();
  });

  it('lists a registered client with its name, grants and scope, never its secret', async () => {
    const { code, stdout } = await ws.cli('clients', 'list');
    expect(code).toBe(0);
    const [header, row] = lines(stdout);
    expect(header).toMatch(/^CLIENT ID\s+NAME/);
    expect(row).toContain(clientId);
    expect(row).toContain('Nightly sync');
    expect(row).toContain('client_credentials');
    expect(stdout).not.toContain(clientSecret);
  });

  it('prints one JSON object per client with --json, without the secret hash', async () => {
    const { stdout } = await ws.cli('clients', 'list', '--json');
    const [client] = lines(stdout).map((line) => JSON.parse(line));
    expect(client).toMatchObject({ clientId, clientName: 'Nightly sync', confidential: true, scope: 'contact:write' });
    expect(client).not.toHaveProperty('secretHash');
  });

  it('revokes a client: its tokens stop working and it can no longer get new ones', async () => {
    const before = await api.post('/api/contact', { name: 'A', email: 'a@example.com', message: 'm', privacy: true }, { authorization: `Bearer ${accessToken}` });
    expect(before.status).toBe(200);
    const { code, stdout, stderr } = await ws.cli('clients', 'revoke', clientId);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(`client ${clientId} revoked`);
    const after = await api.post('/api/contact', { name: 'A', email: 'a@example.com', message: 'm', privacy: true }, { authorization: `Bearer ${accessToken}` });
    expect(after.status).toBe(401);
    const token = await fetch(`${api.url}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    expect(token.status).toBe(401);
    expect((await ws.cli('clients', 'list')).stdout.trim()).toBe('no clients');
  });

  it("revokes a client whose id begins with '-', as one in 32 base64url ids does, taking it as the id and not as an option", async () => {
    const dashed = '-5NDrNB49iM_hK1y3gr9Bw';
    await api.deps.oauth.createClient({
      clientId: dashed,
      secretHash: 'ab'.repeat(32),
      clientName: 'Dashed',
      redirectUris: [],
      grantTypes: ['client_credentials'],
      tokenEndpointAuthMethod: 'client_secret_basic',
      scope: 'contact:write',
      applicationType: null,
      createdAt: 0,
      lastUsedAt: null,
    });
    const { code, stdout, stderr } = await ws.cli('clients', 'revoke', dashed);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(`client ${dashed} revoked`);
    expect(await api.deps.oauth.getClient(dashed)).toBeUndefined();
  });

  it('exits 1 for an unknown client and without an id', async () => {
    const unknown = await ws.cli('clients', 'revoke', 'no-such-client');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('portico: no client no-such-client\n');
    const missing = await ws.cli('clients', 'revoke');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("portico: missing required argument 'id'\n");
  });
});

describe('portico clients revoke, for a client identified by its metadata document', () => {
  let ws: Workspace;
  let host: DocumentServer;
  let api: TestApp;

  beforeAll(async () => {
    ws = await workspace();
    host = await startDocumentServer();
    api = await startApp({ DATABASE_URL: ws.env.DATABASE_URL!, RATE_LIMITS: 'off', CIMD_ALLOW_PRIVATE_NETWORKS: 'true' }, { dir: ws.dir, port: await freePort(), metadataDocumentCa: host.cert });
  });
  afterAll(async () => {
    await api.close();
    await host.close();
    await ws.remove();
  });

  it('ends its tokens and says how to refuse it for good', async () => {
    const url = host.publish('/cli.json', clientDocument(`${host.origin}/cli.json`));
    const http = new OAuthTestClient(api.url);
    const client = documented(url, clientDocument(url).redirect_uris);
    const tokens = await http.approvedTokens(client);
    const { code, stdout } = await ws.cli('clients', 'revoke', url);
    expect(code).toBe(0);
    expect(stdout).toBe(`client ${url} revoked: its codes and tokens are gone; it can be authorized again while its document is accepted (CIMD_DENIED_HOSTS=127.0.0.1 refuses it)\n`);
    expect((await http.contact(tokens.access_token)).status).toBe(401);
    expect((await http.refresh(client, tokens.refresh_token)).status).toBe(400);
  });
});
