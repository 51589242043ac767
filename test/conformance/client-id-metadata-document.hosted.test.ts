// Why CIMD matters to hosted MCP clients: every user of one host connects from the host's few addresses.
// With the contract's limits on (section 8), 50 users of one hosted client connect within an hour through its
// metadata document without a 429; registering each user instead is refused at the eleventh (10 an hour).
// Each user's browser has its own address (TRUST_PROXY); the host's server, which exchanges the codes, has one.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestApp } from '../support/app.js';
import { clientDocument, startDocumentServer, type DocumentServer } from '../support/metadata-document-server.js';
import { startAuthorizationServer } from './support/authorization-server.js';
import { documented } from './support/documented-client.js';
import { consentIdOf, cookieOf, OAuthTestClient } from './support/oauth-client.js';

describe('50 users of one hosted client behind one address, within an hour', () => {
  let host: DocumentServer;
  let api: TestApp;
  let http: OAuthTestClient;
  beforeAll(async () => {
    host = await startDocumentServer();
    api = await startAuthorizationServer({ RATE_LIMITS: 'default', TRUST_PROXY: 'loopback', CIMD_ALLOW_PRIVATE_NETWORKS: 'true' }, { metadataDocumentCa: host.cert });
    http = new OAuthTestClient(api.url);
  });
  afterAll(async () => {
    await api.close();
    await host.close();
  });
  // The rate limiter counts by Date.now(): the hour is walked through by moving the system time alone.
  afterEach(() => void vi.useRealTimers());

  /** One user: consent in their own browser (their address), then the host exchanges the code (its address). */
  async function connectUser(client: ReturnType<typeof documented>, user: number): Promise<number> {
    const browser = { 'x-forwarded-for': `198.51.100.${user + 1}` };
    const { url, verifier, redirectUri } = http.authorizationUrl(client);
    const page = await fetch(url, { headers: browser });
    if (page.status !== 200) return page.status;
    const decided = await http.submitConsent(consentIdOf(await page.text()), 'approve', { cookie: cookieOf(page) }, browser);
    if (decided.status !== 303) return decided.status;
    const code = new URL(decided.headers.get('location')!).searchParams.get('code')!;
    return (await http.exchange(client, { code, verifier, redirectUri })).status;
  }

  it('connects all 50 through the metadata document', async () => {
    const url = host.publish('/hosted.json', clientDocument(`${host.origin}/hosted.json`), { 'cache-control': 'max-age=3600' });
    const client = documented(url, clientDocument(url).redirect_uris);
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const statuses: number[] = [];
    for (let user = 0; user < 50; user++) {
      statuses.push(await connectUser(client, user));
      vi.setSystemTime(Date.now() + 70_000); // 50 users in 58 minutes
    }
    expect(statuses).toEqual(Array(50).fill(200));
  });

  it('would refuse the eleventh if each user registered the client afresh (contract section 8: 10 an hour)', async () => {
    const statuses: number[] = [];
    for (let user = 0; user < 11; user++) statuses.push((await http.register({ client_name: 'Hosted', redirect_uris: ['https://hosted.example/cb'], token_endpoint_auth_method: 'none' })).status);
    expect(statuses).toEqual([...Array(10).fill(201), 429]);
  });
});
