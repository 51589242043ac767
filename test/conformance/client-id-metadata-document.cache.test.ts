// How long a fetched document is trusted (D13): Cache-Control within a floor and a ceiling, on every node.
// Two nodes share one database, as nodes behind a load balancer do, and one clock the test moves.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_CEILING_MS, CACHE_FLOOR_MS } from '../../src/modules/oauth/metadata-documents.js';
import { freePort, startApp, type TestApp } from '../support/app.js';
import { clientDocument, startDocumentServer, type DocumentServer } from '../support/metadata-document-server.js';
import { movableClock } from './support/authorization-server.js';
import { documented } from './support/documented-client.js';
import { expectErrorPage, expectOAuthError } from './support/expectations.js';
import { OAuthTestClient } from './support/oauth-client.js';

describe('a cached client ID metadata document, on two nodes', () => {
  const clock = movableClock();
  let dir: string;
  let host: DocumentServer;
  let nodes: TestApp[];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-cimd-nodes-'));
    host = await startDocumentServer();
    // Each node's PUBLIC_URL is its own loopback origin, so the consent form's Origin check passes on it.
    const start = async () => startApp({ RATE_LIMITS: 'off', CIMD_ALLOW_PRIVATE_NETWORKS: 'true' }, { dir, clock, metadataDocumentCa: host.cert, port: await freePort() });
    nodes = [await start(), await start()];
  });
  afterAll(async () => {
    for (const node of nodes) await node.close();
    await host.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('stops getting tokens on every node within the ceiling once its document is gone, however long the host said to cache it', async () => {
    const url = host.publish('/gone-soon.json', clientDocument(`${host.origin}/gone-soon.json`), { 'cache-control': 'public, max-age=86400' });
    const client = documented(url, clientDocument(url).redirect_uris);
    const [a, b] = nodes.map((node) => new OAuthTestClient(node.url)) as [OAuthTestClient, OAuthTestClient];
    let refresh = (await a.approvedTokens(client)).refresh_token;
    const refreshOn = async (http: OAuthTestClient) => {
      const response = await http.refresh(client, refresh);
      if (response.status === 200) refresh = (await response.json()).refresh_token;
      return response;
    };
    expect((await refreshOn(b)).status).toBe(200);

    host.remove('/gone-soon.json');
    clock.advance(CACHE_CEILING_MS / 1000 - 60);
    // Still within the ceiling: both nodes serve it from their caches.
    expect((await refreshOn(a)).status).toBe(200);
    expect((await refreshOn(b)).status).toBe(200);

    clock.advance(61);
    for (const http of [a, b]) {
      const refused = await expectOAuthError(await refreshOn(http), 401, 'invalid_client');
      expect(refused.error_description).toBe(`the client ID metadata document ${url} could not be used`);
    }
    // What the loopback host answered is for the operator (D19).
    for (const node of nodes) expect(node.logs.join('')).toContain('the server answered HTTP 404, not 200');
  });

  it('follows a changed document once its max-age has passed, and never caches a failure', async () => {
    const path = '/changing.json';
    const url = `${host.origin}${path}`;
    const before = clientDocument(url, { redirect_uris: ['https://hosted.example/old-callback'] });
    host.publish(path, before, { 'cache-control': 'max-age=120' });
    const client = documented(url, before.redirect_uris);
    for (const node of nodes) expect((await new OAuthTestClient(node.url).approvedTokens(client)).access_token).toEqual(expect.any(String));

    host.publish(path, clientDocument(url, { redirect_uris: ['https://hosted.example/new-callback'] }), { 'cache-control': 'max-age=120' });
    clock.advance(121);
    for (const node of nodes) {
      const http = new OAuthTestClient(node.url);
      await expectErrorPage(await http.openAuthorization(http.authorizationUrl(client).url), 400);
      expect((await http.approvedTokens(documented(url, ['https://hosted.example/new-callback']))).access_token).toEqual(expect.any(String));
    }

    // A failed fetch is not remembered: the next request fetches again.
    clock.advance(121);
    host.route(path, (_q, r) => r.writeHead(503).end());
    const http = new OAuthTestClient(nodes[0]!.url);
    await expectErrorPage(await http.openAuthorization(http.authorizationUrl(client).url), 400);
    host.publish(path, before, { 'cache-control': 'no-store' });
    expect((await http.approvedTokens(client)).access_token).toEqual(expect.any(String));
  });

  it('keeps even a no-store document for the floor, so one authorization fetches it once', async () => {
    const url = host.publish('/no-store.json', clientDocument(`${host.origin}/no-store.json`), { 'cache-control': 'no-store' });
    const client = documented(url, clientDocument(url).redirect_uris);
    const http = new OAuthTestClient(nodes[0]!.url);
    await http.approvedTokens(client);
    expect(host.hits.filter((p) => p === '/no-store.json')).toHaveLength(1);
    clock.advance(CACHE_FLOOR_MS / 1000 + 1);
    await http.approvedTokens(client);
    expect(host.hits.filter((p) => p === '/no-store.json')).toHaveLength(2);
  });
});
