// Discovery and tokens agree: every `resource` a protected-resource document names (RFC 9728 section 3)
// is accepted at the token endpoint and at authorize (RFC 8707 section 2) with each scope the document
// lists, by client credentials and by the code flow, and the token is accepted on every endpoint the
// document covers: it does what its scope allows there, and is never refused as issued for elsewhere.
import { describe, expect, it } from 'vitest';
import { authorizationServerForSuite } from './support/authorization-server.js';
import type { OAuthTestClient, RegisteredClient } from './support/oauth-client.js';

const PRM = '/.well-known/oauth-protected-resource';
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

interface Operation {
  method: string;
  path: string;
  /** The scope the operation takes a Bearer token with (OpenAPI security). */
  scope: string;
}

interface ResourceDocument {
  at: string;
  resource: string;
  scopes_supported: string[];
  /** The protected operations the document's resource covers. */
  covers: Operation[];
}

/** The documents Portico serves and the operations that take Bearer tokens, as its OpenAPI document lists them. */
async function advertised(base: string): Promise<ResourceDocument[]> {
  const openapi = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, { security?: { oauth2?: string[] }[] }>> };
  const operations: Operation[] = Object.entries(openapi.paths).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, op]) => {
      const scope = op.security?.find((requirement) => requirement.oauth2)?.oauth2?.[0];
      return scope ? [{ method, path, scope }] : [];
    }),
  );
  const documentPaths = Object.keys(openapi.paths).filter((path) => path === PRM || path.startsWith(`${PRM}/`));
  return Promise.all(
    documentPaths.map(async (at) => {
      const document = (await (await fetch(`${base}${at}`)).json()) as Omit<ResourceDocument, 'at' | 'covers'>;
      // RFC 9728 section 3.1: the document for a path names the resource at that path; the root one, the whole API.
      const path = at.slice(PRM.length);
      return { ...document, at, covers: path ? operations.filter((op) => op.path === path) : operations };
    }),
  );
}

/** Calls `op` with the token: an inquiry at /api/contact, tools/call contact_service at /mcp. */
async function call(base: string, op: Operation, accessToken: string): Promise<{ status: number; challenge: string | null; ok: boolean }> {
  const authorization = `Bearer ${accessToken}`;
  const inquiry = { name: 'Ana García', email: 'ana@example.com', message: 'A demo for 40 buildings, please.', privacy: true };
  const response =
    op.path === '/mcp'
      ? await fetch(`${base}/mcp`, {
          method: 'POST',
          headers: {
            authorization,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'contact_service',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'contact_service', arguments: inquiry, _meta: META } }),
        })
      : await fetch(`${base}${op.path}`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(inquiry) });
  const body = (await response.json()) as { ok?: boolean; result?: { isError?: boolean } };
  return { status: response.status, challenge: response.headers.get('www-authenticate'), ok: response.status === 200 && body.ok !== false && body.result?.isError !== true };
}

type Grant = (http: OAuthTestClient, resource: string, scope: string) => Promise<{ status: number; body: { access_token?: string; resource?: string; scope?: string } }>;

const grants: Record<string, Grant> = {
  client_credentials: async (http, resource, scope) => {
    const machine = await http.registerMachineClient();
    const response = await http.tokenAs(machine, { grant_type: 'client_credentials', resource, scope });
    return { status: response.status, body: await response.json() };
  },
  authorization_code: async (http, resource, scope) => {
    const web: RegisteredClient = await http.registerWebClient();
    const response = await http.exchange(web, await http.authorizeAndConsent(web, { resource, scope }));
    return { status: response.status, body: await response.json() };
  },
};

describe('every resource a protected-resource document names', () => {
  const suite = authorizationServerForSuite();

  it('is served at the root, for the whole API with every scope, and for each protected route with its own', async () => {
    const documents = await advertised(suite.api.url);
    expect(documents.map((d) => [d.at, d.resource, d.scopes_supported])).toEqual([
      [PRM, suite.api.url, ['contact:write', 'mcp:invoke', 'docs:read']],
      [`${PRM}/api/contact`, `${suite.api.url}/api/contact`, ['contact:write']],
      [`${PRM}/mcp`, `${suite.api.url}/mcp`, ['mcp:invoke']],
    ]);
    expect(documents[0]!.covers.map((op) => `${op.method} ${op.path}`)).toEqual(['post /api/contact', 'post /mcp']);
  });

  for (const [grant, obtain] of Object.entries(grants)) {
    it(`gives a token by ${grant} for each resource and scope listed, accepted on every endpoint its document covers`, async () => {
      const base = suite.api.url;
      const tried: string[] = [];
      for (const document of await advertised(base)) {
        for (const scope of document.scopes_supported) {
          const { status, body } = await obtain(suite.http, document.resource, scope);
          expect(status, `${grant} for ${document.resource} with ${scope}: ${JSON.stringify(body)}`).toBe(200);
          expect(body).toMatchObject({ resource: document.resource, scope });
          for (const op of document.covers) {
            const outcome = await call(base, op, body.access_token!);
            const what = `${document.resource} ${scope} at ${op.path}: ${outcome.status} ${outcome.challenge}`;
            // Never refused as a token for another audience (RFC 6750 section 3.1, invalid_token).
            expect(outcome.challenge ?? '', what).not.toContain('invalid_token');
            if (op.scope === scope) expect(outcome.ok, what).toBe(true);
            else expect(outcome.challenge, what).toContain('error="insufficient_scope"');
            tried.push(`${document.resource} ${scope} ${op.path}`);
          }
        }
      }
      // The root's three scopes at both routes, and each route's own scope there.
      expect(tried).toHaveLength(3 * 2 + 1 + 1);
    });
  }
});

describe('the whole API as a resource', () => {
  const suite = authorizationServerForSuite();

  it('is the same resource with a trailing slash (RFC 3986 section 6.2.3), named canonically in the answer', async () => {
    const machine = await suite.http.registerMachineClient();
    const response = await suite.http.tokenAs(machine, { grant_type: 'client_credentials', resource: `${suite.api.url}/`, scope: 'mcp:invoke' });
    expect(await response.json()).toMatchObject({ resource: suite.api.url, scope: 'mcp:invoke' });
  });

  it('is accepted again at the token endpoint and on refresh, with or without the slash', async () => {
    const web = await suite.http.registerWebClient();
    const authorized = await suite.http.authorizeAndConsent(web, { resource: suite.api.url, scope: 'contact:write' });
    const exchanged = await suite.http.exchange(web, authorized, { resource: `${suite.api.url}/` });
    const tokens = await exchanged.json();
    expect(tokens).toMatchObject({ resource: suite.api.url });
    const refreshed = await suite.http.refresh(web, tokens.refresh_token, { resource: suite.api.url });
    expect(await refreshed.json()).toMatchObject({ resource: suite.api.url, scope: 'contact:write' });
  });

  it('is not any other path of the server: those stay invalid_target', async () => {
    const machine = await suite.http.registerMachineClient();
    for (const resource of [`${suite.api.url}/oauth/token`, `${suite.api.url}/mcp/`, `${suite.api.url}/api`, 'https://elsewhere.example']) {
      const response = await suite.http.tokenAs(machine, { grant_type: 'client_credentials', resource });
      expect(response.status, resource).toBe(400);
      expect((await response.json()).error, resource).toBe('invalid_target');
    }
  });

  it('does not widen a token bound to one route: a token for /api/contact is still refused at /mcp', async () => {
    const machine = await suite.http.registerMachineClient();
    const response = await suite.http.tokenAs(machine, { grant_type: 'client_credentials', resource: `${suite.api.url}/api/contact`, scope: 'contact:write' });
    const { access_token } = await response.json();
    const outcome = await call(suite.api.url, { method: 'post', path: '/mcp', scope: 'mcp:invoke' }, access_token);
    expect(outcome.status).toBe(401);
    expect(outcome.challenge).toContain('error="invalid_token"');
    expect(outcome.challenge).toContain('scope="mcp:invoke"');
  });
});
