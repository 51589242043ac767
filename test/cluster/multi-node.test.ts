// Three `portico serve` processes on one PostgreSQL and one Redis, as behind a load balancer: a
// client may reach any node for any request, and nothing changes for it.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/cli-harness.js';
import { approveConsent } from '../support/consent.js';
import { freePort } from '../support/app.js';
import { createDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.js';
import { deleteKeys, MACHINE_REDIS, redisAvailable } from '../support/redis.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

const available = (await redisAvailable('test/cluster/multi-node.test.ts')) && (await postgresAvailable('test/cluster/multi-node.test.ts'));

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const inquiry = { name: 'Ana García', email: 'ana@example.com', message: 'A demo for 40 buildings, please.', privacy: true };

describe.skipIf(!available)('three nodes on one PostgreSQL and one Redis', () => {
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  let nodes: ServeProcess[] = [];
  const prefix = `portico-test-${randomBytes(6).toString('hex')}:`;
  let a: string, b: string, c: string;

  beforeAll(async () => {
    database = await createDatabase();
    smtp = await startSmtpServer();
    // The issuer is one address for all nodes (the load balancer's); here, node A's.
    const port = await freePort();
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: MACHINE_REDIS,
      REDIS_KEY_PREFIX: prefix,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'web@portico.example',
      MAIL_TO: 'team@portico.example',
    };
    // Started together: their migrations race on the fresh database, as on a rolling deploy.
    nodes = await Promise.all([startServe(env, { port }), startServe(env), startServe(env)]);
    [a, b, c] = nodes.map((node) => node.url) as [string, string, string];
  }, 60_000);

  afterAll(async () => {
    for (const node of nodes) node.child.kill('SIGTERM');
    await Promise.all(nodes.map((node) => node.exited));
    await smtp?.close();
    await database?.drop();
    await deleteKeys(prefix);
  });

  const register = async (node: string, metadata: object) => {
    const response = await fetch(`${node}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
    expect(response.status).toBe(201);
    return (await response.json()) as { client_id: string; client_secret: string };
  };
  const token = async (node: string, authorization: string, fields: Record<string, string>) => {
    const response = await fetch(`${node}/oauth/token`, { method: 'POST', headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  };
  // Every POST /api/contact counts against the client address's limit, whatever its answer.
  let contactRequests = 0;
  const contact = (node: string, accessToken?: string) => {
    contactRequests++;
    const authorization: Record<string, string> = accessToken ? { authorization: `Bearer ${accessToken}` } : {};
    return fetch(`${node}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json', ...authorization }, body: JSON.stringify(inquiry) });
  };

  it('registers on A, issues a token on B, accepts it on C; a revocation on C is refused on A at once', async () => {
    const client = await register(a, { client_name: 'Cluster CRM', grant_types: ['client_credentials'], scope: 'contact:write' });
    const issued = await token(b, basic(client.client_id, client.client_secret), { grant_type: 'client_credentials', scope: 'contact:write' });
    expect(issued.status).toBe(200);
    const accepted = await contact(c, issued.body.access_token!);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ ok: true });

    const revoked = await fetch(`${c}/oauth/revoke`, {
      method: 'POST',
      headers: { authorization: basic(client.client_id, client.client_secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: issued.body.access_token! }),
    });
    expect(revoked.status).toBe(200);
    const refused = await contact(a, issued.body.access_token!);
    expect(refused.status).toBe(401);
    expect((await refused.json()).error).toBe('invalid_token');
  });

  it('issues no token for a client deleted with `portico clients revoke`, though a node read it a moment before', async () => {
    const client = await register(a, { client_name: 'Short-lived CRM', grant_types: ['client_credentials'], scope: 'contact:write' });
    const credentials = basic(client.client_id, client.client_secret);
    expect((await token(b, credentials, { grant_type: 'client_credentials' })).status).toBe(200);

    const deleted = await runCli(['clients', 'revoke', client.client_id], { DATABASE_URL: database.url });
    expect(deleted.code, deleted.stderr).toBe(0);
    for (const node of [b, a, c]) {
      const refused = await token(node, credentials, { grant_type: 'client_credentials' });
      expect(refused.status).toBe(401);
      expect(refused.body.error).toBe('invalid_client');
    }
  });

  const redirectUri = 'https://app.example/callback';
  /** A confidential client allowed to refresh, and an approved code with its verifier (approved on A). */
  const approvedCode = async (client?: { client_id: string; client_secret: string }) => {
    client ??= await register(a, { client_name: 'Cluster app', redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], scope: 'contact:write' });
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = new URL(`${a}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's1',
      scope: 'contact:write',
    }).toString();
    const callback = await approveConsent(authorize);
    const exchange = { grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: redirectUri, code_verifier: verifier };
    return { client, exchange };
  };

  it('lets a code consumed on one node never be replayed on another, and the replay revokes what it issued (D4)', async () => {
    const { client, exchange } = await approvedCode();
    const first = await token(b, basic(client.client_id, client.client_secret), exchange);
    expect(first.status).toBe(200);
    const replay = await token(c, basic(client.client_id, client.client_secret), exchange);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    // The tokens the code gave are revoked, on every node.
    expect((await contact(a, first.body.access_token!)).status).toBe(401);
  });

  // RFC 7009 section 2.1: revoking a refresh token ends its grant, even while another node is refreshing it.
  it('leaves nothing usable when a refresh on one node races the revocation of its grant on another', async () => {
    let client: { client_id: string; client_secret: string } | undefined;
    // Six rounds: up to three token requests each stay within the token limit the nodes share (30 a minute).
    for (let i = 0; i < 6; i++) {
      const approved = await approvedCode(client);
      client = approved.client;
      const auth = basic(client.client_id, client.client_secret);
      const { body: tokens } = await token(b, auth, approved.exchange);
      const [refreshed, revoked] = await Promise.all([
        token(b, auth, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }),
        fetch(`${c}/oauth/revoke`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: tokens.refresh_token! }),
        }),
      ]);
      expect(revoked.status).toBe(200);
      if (refreshed.status === 400) {
        expect(refreshed.body.error).toBe('invalid_grant');
        continue;
      }
      // The refresh ran first: what it issued belongs to the grant the revocation then ended. (Its access
      // token was written with its refresh token, in one transaction; /api/contact is not asked, as every
      // request there counts against the limit tested below.)
      expect(refreshed.status).toBe(200);
      const again = await token(a, auth, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token! });
      expect(again.body.error).toBe('invalid_grant');
    }
  });

  it('holds the contact limit of 8 an hour across the three nodes together', async () => {
    const accepted = 8 - contactRequests;
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const response = await contact(nodes[i % 3]!.url);
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(accepted);
    expect(statuses.slice(accepted).every((status) => status === 429)).toBe(true);
  });
});
