// PostgreSQL stopped behind two nodes and docs/deploy.md's nginx: what needs no database keeps answering
// 200 through the proxy, what needs it gets the node's own JSON 503 with Retry-After (never nginx's 502 for
// everything), and all of it recovers when PostgreSQL is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasNginx, NGINX, startCluster, type Cluster } from '../support/nginx.js';
import { canRunPrivatePostgres, startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js';
import { redisAvailable } from '../support/redis.js';

const FILE = 'test/cluster/nginx.database-outage.test.ts';
if (!hasNginx) console.warn(`SKIPPED ${FILE}: ${NGINX} is missing. Install Debian's nginx-light (as .ci/run does).`);
if (!canRunPrivatePostgres) console.warn(`SKIPPED ${FILE}: PostgreSQL 15 server binaries are missing (/usr/lib/postgresql/15/bin).`);
const available = hasNginx && canRunPrivatePostgres && (await redisAvailable(FILE));

describe.skipIf(!available)('PostgreSQL stopped behind two nodes and nginx', () => {
  let database: PrivatePostgres;
  let cluster: Cluster;
  let proxy: string;
  let authorization: string;

  beforeAll(async () => {
    database = await startPrivatePostgres();
    cluster = await startCluster(database.url, { RATE_LIMITS: 'off' });
    proxy = cluster.proxy;
    const registered = await (
      await fetch(`${proxy}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_types: ['client_credentials'], scope: 'contact:write' }) })
    ).json();
    authorization = `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64')}`;
  }, 40_000);
  afterAll(async () => {
    await cluster?.close();
    await database?.destroy();
  });

  const token = () =>
    fetch(`${proxy}/oauth/token`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'contact:write' }),
    });
  const free = ['/healthz', '/.well-known/oauth-authorization-server', '/openapi.json'];

  it('answers what needs no database, passes the nodes’ 503 through for what does, and recovers', async () => {
    expect((await token()).status).toBe(200);
    await database.stop();
    try {
      // Long enough for nginx to have taken out nodes that failed, were a node's 503 a failure to it.
      for (let round = 0; round < 3; round++) {
        const refused = await token();
        expect(refused.status).toBe(503);
        expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(await refused.json()).toMatchObject({ error: 'store_unavailable' });
        // A GET nginx could send to the other node: that node's 503 is passed through too.
        const ready = await fetch(`${proxy}/readyz`);
        expect(ready.status).toBe(503);
        expect(await ready.json()).toMatchObject({ error: 'not_ready' });
        for (const path of free) expect((await fetch(`${proxy}${path}`)).status, path).toBe(200);
      }
    } finally {
      await database.start();
    }
    await expect.poll(async () => (await token()).status, { timeout: 15_000, interval: 500 }).toBe(200);
    for (const path of free) expect((await fetch(`${proxy}${path}`)).status, path).toBe(200);
  }, 60_000);
});
