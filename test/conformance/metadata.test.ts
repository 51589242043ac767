// Discovery: RFC 8414 authorization-server metadata and RFC 9728 protected-resource metadata, read by a strict client.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { discover, insecure, startAuthorizationServer } from './support/authorization-server.js';

describe('authorization server metadata (RFC 8414)', () => {
  let api: TestApp;
  let as: oauth.AuthorizationServer;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    as = await discover(api);
  });
  afterAll(() => api.close());

  // RFC 8414 section 3.3: the issuer in the document is identical to the one the client asked about.
  it('is discovered by oauth4webapi with the issuer exactly equal to PUBLIC_URL', () => {
    expect(as.issuer).toBe(api.url);
  });

  // RFC 8414 section 3: the document lives at /.well-known/oauth-authorization-server, as JSON.
  it('is served as application/json at the well-known path, readable from any origin (D10)', async () => {
    const response = await fetch(`${api.url}/.well-known/oauth-authorization-server`, { headers: { origin: 'https://agent.example' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  // RFC 8414 section 2 (with RFC 7591 section 3 and RFC 7009 section 2): every endpoint, under the issuer.
  it('names the authorization, token, registration and revocation endpoints under the issuer', () => {
    expect(as).toMatchObject({
      authorization_endpoint: `${api.url}/oauth/authorize`,
      token_endpoint: `${api.url}/oauth/token`,
      registration_endpoint: `${api.url}/oauth/register`,
      revocation_endpoint: `${api.url}/oauth/revoke`,
    });
  });

  // RFC 8414 section 2 and RFC 7636 section 4.3: only S256, so a client never falls back to plain.
  it('lists S256 as the only code challenge method', () => {
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
  });

  // RFC 9207 section 3: clients must then expect iss in every authorization response.
  it('announces authorization_response_iss_parameter_supported', () => {
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
  });

  // RFC 8414 section 2: response types, grant types, client authentication methods and scopes.
  it('lists the code response type, the three grants, the three auth methods and the three scopes', () => {
    expect(as.response_types_supported).toEqual(['code']);
    expect(as.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'client_credentials', 'refresh_token']));
    expect(as.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post', 'none']));
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['contact:write', 'mcp:invoke', 'docs:read']));
  });

  // RFC 8414 section 2: no implicit or hybrid flow is advertised.
  it('advertises no implicit grant', () => {
    expect(as.grant_types_supported).not.toContain('implicit');
    expect(as.response_types_supported).not.toContain('token');
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startAuthorizationServer();
  });
  afterAll(() => api.close());

  const discoverResource = async (resource: string) => {
    const identifier = new URL(resource);
    return oauth.processResourceDiscoveryResponse(identifier, await oauth.resourceDiscoveryRequest(identifier, insecure));
  };

  // RFC 9728 section 3: /.well-known/oauth-protected-resource describes the API as a whole.
  it('at the root names the API and this server as its authorization server', async () => {
    const metadata = await discoverResource(api.url);
    expect(metadata.resource).toBe(api.url);
    expect(metadata.authorization_servers).toEqual([api.url]);
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['contact:write', 'mcp:invoke', 'docs:read']));
  });

  // RFC 9728 sections 3.1 and 3.3: the well-known segment before the path; `resource` exactly the resource URL.
  it('at /.well-known/oauth-protected-resource/api/contact has resource exactly the /api/contact URL', async () => {
    const metadata = await discoverResource(`${api.url}/api/contact`);
    expect(metadata.resource).toBe(`${api.url}/api/contact`);
    expect(metadata.scopes_supported).toEqual(['contact:write']);
    expect(metadata.bearer_methods_supported).toEqual(['header']);
  });

  // RFC 9728 section 2: authorization_servers holds issuer identifiers whose RFC 8414 metadata resolves.
  it('points at an issuer whose RFC 8414 metadata a strict client accepts', async () => {
    const metadata = await discoverResource(`${api.url}/api/contact`);
    const issuer = new URL(metadata.authorization_servers![0]!);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
    expect(as.token_endpoint).toBe(`${api.url}/oauth/token`);
  });

  // RFC 9728 section 3.1: metadata exists only for the resources this server protects.
  it('answers 404 for a resource that is not protected', async () => {
    const response = await fetch(`${api.url}/.well-known/oauth-protected-resource/api/unknown`);
    expect(response.status).toBe(404);
  });
});
