// The doctor's checks as pure functions: answers in, findings out, each wrong answer named with its fix.
import { describe, expect, it } from 'vitest';
import { checks } from './checks.js';
import { unreachable } from './checks-transport.js';
import type { Finding } from './finding.js';
import { answered, challengeParameters, LEGACY_VERSION, MODERN_VERSION, type Observations } from './gather.js';
import type { Answer, Failure } from './probe.js';
import { difference, parseTarget, wellKnownUrl } from './urls.js';

const BASE = 'https://api.example.com';
const NOW = Date.parse('2026-11-01T00:00:00Z');
const DAY = 86_400_000;

const answer = (url: string, status: number, body: unknown = '', headers: Record<string, string> = {}, method = 'GET'): Answer => ({
  method,
  url,
  ms: 5,
  status,
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

const resource = (base: string, path: string, scopes: string[]) => ({ resource: `${base}${path}`, authorization_servers: [base], scopes_supported: scopes });
const serverMetadata = (base: string) => ({
  issuer: base,
  authorization_endpoint: `${base}/oauth/authorize`,
  token_endpoint: `${base}/oauth/token`,
  registration_endpoint: `${base}/oauth/register`,
  revocation_endpoint: `${base}/oauth/revoke`,
  token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
  code_challenge_methods_supported: ['S256'],
  authorization_response_iss_parameter_supported: true,
  client_id_metadata_document_supported: true,
});
const tools = { result: { tools: [{ name: 'contact_service', _meta: { ui: { resourceUri: 'ui://portico/contact-form' } } }] }, jsonrpc: '2.0', id: 1 };
const preflight = (url: string, origin = '*', methods = 'GET, OPTIONS') =>
  answer(url, 204, '', { 'access-control-allow-origin': origin, 'access-control-allow-methods': methods, 'access-control-allow-headers': 'Authorization, Content-Type' }, 'OPTIONS');

/** What a healthy deployment at `base` answers, the server's PUBLIC_URL being `published`. */
function deployment(base = BASE, published = base): Observations {
  const root = {
    // A node sends HSTS over https only (src/http/strict-transport.ts).
    ...answer(
      wellKnownUrl(base, 'oauth-protected-resource'),
      200,
      resource(published, '', ['contact:write', 'mcp:invoke']),
      base.startsWith('https:') ? { 'strict-transport-security': 'max-age=31536000' } : {},
    ),
    certificate: { subject: 'api.example.com', issuer: 'R11', validTo: NOW + 60 * DAY },
  };
  const challenge = answer(
    `${base}/mcp`,
    401,
    { error: 'invalid_token' },
    { 'www-authenticate': `Bearer error="invalid_token", scope="mcp:invoke", resource_metadata="${published}/.well-known/oauth-protected-resource/mcp"` },
    'POST',
  );
  const seen: Observations = {
    target: parseTarget(base),
    budgetMs: 10_000,
    answers: [],
    first: root,
    resources: {
      root,
      mcp: answer(`${base}/.well-known/oauth-protected-resource/mcp`, 200, resource(published, '/mcp', ['mcp:invoke'])),
      contact: answer(`${base}/.well-known/oauth-protected-resource/api/contact`, 200, resource(published, '/api/contact', ['contact:write'])),
    },
    authorizationServer: answer(`${base}/.well-known/oauth-authorization-server`, 200, serverMetadata(published)),
    token: answer(`${base}/oauth/token`, 401, { error: 'invalid_client' }, {}, 'POST'),
    registration: answer(`${base}/oauth/register`, 400, { error: 'invalid_redirect_uri' }, {}, 'POST'),
    challenge,
    challengeMetadata: answer(`${base}/.well-known/oauth-protected-resource/mcp`, 200, resource(published, '/mcp', ['mcp:invoke'])),
    toolsList: { [LEGACY_VERSION]: answer(`${base}/mcp`, 200, tools, {}, 'POST'), [MODERN_VERSION]: answer(`${base}/mcp`, 200, tools, {}, 'POST') },
    appResource: answer(`${base}/mcp`, 200, { result: { contents: [{ uri: 'ui://portico/contact-form', mimeType: 'text/html;profile=mcp-app', text: '<!doctype html>' }] } }, {}, 'POST'),
    discoveryPreflights: [preflight(`${base}/.well-known/oauth-authorization-server`)],
    contactPreflights: [{ origin: 'https://www.example.com', answer: preflight(`${base}/api/contact`, 'https://www.example.com', 'POST, OPTIONS') }],
  };
  seen.answers = [root, challenge];
  return seen;
}

const find = (findings: Finding[], check: string) => findings.find((f) => f.check === check)!;
const failed = (findings: Finding[]) => findings.filter((f) => f.status === 'fail').map((f) => f.check);

describe('the doctor checks', () => {
  it('pass every check of a healthy deployment, each with its time', () => {
    const findings = checks(deployment(), NOW);
    expect(findings.filter((f) => f.status !== 'pass')).toEqual([]);
    expect(findings.every((f) => typeof f.ms === 'number')).toBe(true);
  });

  it('name PUBLIC_URL and the value to use when the documents name another host', () => {
    const findings = checks(deployment(BASE, 'https://portico.internal:3000'), NOW);
    expect(failed(findings)).toEqual(['resource /', 'resource /mcp', 'resource /api/contact', 'issuer', 'endpoints', 'challenge', 'challenge metadata', 'proxy']);
    expect(find(findings, 'resource /mcp').message).toContain('resource is https://portico.internal:3000/mcp, not https://api.example.com/mcp (another host)');
    for (const check of ['resource /mcp', 'issuer', 'proxy']) expect(find(findings, check).fix).toMatch(/^set PUBLIC_URL=https:\/\/api\.example\.com on every node/);
  });

  it("say that plain http behind https is the nodes' PUBLIC_URL", () => {
    const proxy = find(checks(deployment(BASE, 'http://api.example.com'), NOW), 'proxy');
    expect(proxy.message).toBe("the answers name http://api.example.com, plain http behind https://api.example.com: the nodes' PUBLIC_URL is http://, and hosts refuse every document");
    expect(proxy.fix).toContain('set PUBLIC_URL=https://api.example.com');
  });

  it('say PUBLIC_URL is not set when the documents name its default', () => {
    expect(find(checks(deployment(BASE, 'http://localhost:3000'), NOW), 'proxy').message).toContain('PUBLIC_URL is not set on the nodes');
  });

  it('name the trailing slash, and the URL to give hosts', () => {
    const findings = checks(deployment('https://example.com/api/', 'https://example.com/api'), NOW);
    const root = find(findings, 'resource /');
    expect(root.message).toContain('they differ by a trailing slash');
    expect(root.fix).toBe('give hosts https://example.com/api/mcp, without the trailing slash, as PUBLIC_URL names it');
  });

  it('name X-Forwarded-Proto and TRUST_PROXY when an https answer carries no Strict-Transport-Security', () => {
    const seen = deployment();
    seen.resources!.root.headers = {};
    const proxy = find(checks(seen, NOW), 'proxy');
    expect([proxy.status, proxy.message]).toEqual(['fail', 'the nodes took these https requests for plain http: the answers carry no Strict-Transport-Security, which a node sends over https only']);
    expect(proxy.fix).toContain('proxy_set_header X-Forwarded-Proto $scheme;');
    expect(proxy.fix).toContain('TRUST_PROXY');
  });

  it("name the proxy's Host header when /mcp refuses the Host the nodes received", () => {
    const seen = deployment();
    const refused = answer(`${BASE}/mcp`, 403, { error: 'forbidden', error_description: 'Host portico is not this server' }, {}, 'POST');
    seen.challenge = refused;
    seen.toolsList = { [LEGACY_VERSION]: refused, [MODERN_VERSION]: refused };
    const proxy = find(checks(seen, NOW), 'proxy');
    expect(proxy.status).toBe('fail');
    expect(proxy.fix).toContain('proxy_set_header Host $http_host;');
  });

  it('say Claude will register at every connection without CIMD or without none', () => {
    const seen = deployment();
    seen.authorizationServer!.body = JSON.stringify({ ...serverMetadata(BASE), client_id_metadata_document_supported: undefined });
    const cimd = find(checks(seen, NOW), 'client id documents');
    expect(cimd).toMatchObject({ status: 'warn', message: 'client_id_metadata_document_supported is not advertised: Claude will register a new client on every connection' });
    expect(cimd.fix).toContain('CIMD=on');
    seen.authorizationServer!.body = JSON.stringify({ ...serverMetadata(BASE), token_endpoint_auth_methods_supported: ['client_secret_basic'] });
    expect(find(checks(seen, NOW), 'client id documents').message).toContain('lacks none');
  });

  it('fail an issuer that is not identical, and a server without S256', () => {
    const seen = deployment();
    seen.authorizationServer!.body = JSON.stringify({ ...serverMetadata(BASE), issuer: `${BASE}/`, code_challenge_methods_supported: ['plain'] });
    const findings = checks(seen, NOW);
    expect(find(findings, 'issuer').message).toContain('issuer is "https://api.example.com/", not https://api.example.com (a trailing slash apart)');
    expect(find(findings, 'pkce').status).toBe('fail');
  });

  it('fail a challenge without scope or resource_metadata, and one a proxy turned into 200 by dropping Authorization', () => {
    const seen = deployment();
    seen.challenge!.headers['www-authenticate'] = 'Bearer error="invalid_token"';
    expect(find(checks(seen, NOW), 'challenge').message).toBe(
      'the challenge names no resource_metadata: hosts must guess where the metadata is; the challenge names no scope: hosts cannot tell which to ask for',
    );
    seen.challenge = answer(`${BASE}/mcp`, 200, tools, {}, 'POST');
    expect(find(checks(seen, NOW), 'challenge').fix).toContain('drops the Authorization header');
  });

  it('warn of a certificate that expires within 14 days, with the date', () => {
    const seen = deployment();
    seen.first.certificate = { subject: 'api.example.com', issuer: 'R11', validTo: NOW + 3 * DAY + 1000 };
    expect(find(checks(seen, NOW), 'https')).toMatchObject({ status: 'warn', message: 'certificate for api.example.com from R11, valid for api.example.com until 2026-11-04: expires in 3 days' });
  });

  it('refuse plain http anywhere but loopback, and accept it there, said plainly', () => {
    expect(find(checks(deployment('http://api.example.com'), NOW), 'https')).toMatchObject({ status: 'fail', fix: expect.stringContaining('PUBLIC_URL=https://api.example.com') });
    expect(find(checks(deployment('http://127.0.0.1:3000'), NOW), 'https')).toMatchObject({ status: 'pass', message: expect.stringContaining('plain http on loopback') });
  });

  it('fail the time check naming each request that did not answer in time', () => {
    const seen = deployment();
    const late: Answer = {
      ...answer(`${BASE}/.well-known/oauth-authorization-server`, 0),
      status: undefined,
      ms: 10_000,
      failure: { kind: 'timeout', code: 'ETIMEDOUT', message: 'no whole answer within 10 s' },
    };
    seen.authorizationServer = late;
    seen.answers.push(late);
    const findings = checks(seen, NOW);
    expect(find(findings, 'time')).toMatchObject({ status: 'fail', message: 'GET /.well-known/oauth-authorization-server: no answer within 10 s, where MCP hosts give up' });
    expect(find(findings, 'issuer').fix).toBe('see the time check');
  });

  it('name CONTACT_ALLOWED_ORIGINS for an origin /api/contact does not allow', () => {
    const seen = deployment();
    seen.contactPreflights = [{ origin: 'https://shop.example.com', answer: answer(`${BASE}/api/contact`, 204, '', { vary: 'Origin' }, 'OPTIONS') }];
    expect(find(checks(seen, NOW), 'cors /api/contact https://shop.example.com').fix).toBe('add https://shop.example.com to CONTACT_ALLOWED_ORIGINS on every node (comma-separated origins)');
  });
});

describe('a first request that got no whole answer', () => {
  const failedFirst = (failure: Failure, status?: number): Observations => {
    const seen = deployment();
    Object.assign(seen.first, { status, ms: 1_000, failure });
    return seen;
  };

  it('is no answer at all without a status, said in one line with its fix: no connection, no TLS session, or silence', () => {
    const said = (failure: Failure) => {
      const seen = failedFirst(failure);
      expect(answered(seen.first)).toBe(false);
      const { check, status, message, fix } = unreachable(seen);
      return { check, status, line: `${message}; ${fix}` };
    };
    expect(said({ kind: 'tls', code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'self-signed certificate' })).toEqual({
      check: 'reach',
      status: 'fail',
      line: expect.stringMatching(
        /^cannot reach https:\/\/api\.example\.com: the certificate is not signed by an authority this machine trusts \(DEPTH_ZERO_SELF_SIGNED_CERT\); .*NODE_EXTRA_CA_CERTS/,
      ),
    });
    expect(said({ kind: 'tls', code: 'ETIMEDOUT', message: 'the TLS handshake did not finish within 10 s' }).line).toBe(
      'cannot reach https://api.example.com: api.example.com took the connection, but the TLS handshake did not finish within 10 s; put the TLS proxy on this port, or see its error log for the handshake',
    );
    expect(said({ kind: 'timeout', code: 'ETIMEDOUT', message: 'no whole answer within 10 s' }).line).toMatch(
      /^cannot reach https:\/\/api\.example\.com: api\.example\.com took the connection but sent no answer within 10 s; find what holds it: the proxy/,
    );
    expect(said({ kind: 'unreachable', code: 'ETIMEDOUT', message: 'no connection within 10 s' }).line).toMatch(/: no connection within 10 s: a firewall may drop the packets; start Portico/);
    expect(said({ kind: 'broken', code: 'HPE_INVALID_CONSTANT', message: 'Parse Error' }).line).toMatch(
      /: api\.example\.com sent no HTTP answer: Parse Error \(HPE_INVALID_CONSTANT\); point doctor at Portico/,
    );
  });

  it('fails reach, when the answer began but came late, pointing at the time check, which is there and names it', () => {
    const seen = failedFirst({ kind: 'timeout', code: 'ETIMEDOUT', message: 'no whole answer within 10 s' }, 200);
    seen.answers = [seen.first];
    expect(answered(seen.first)).toBe(true);
    const findings = checks(seen, NOW);
    expect(find(findings, 'reach')).toMatchObject({ status: 'fail', message: 'GET /.well-known/oauth-protected-resource: no whole answer within 10 s', fix: 'see the time check' });
    expect(find(findings, 'time')).toMatchObject({ status: 'fail', message: 'GET /.well-known/oauth-protected-resource: no answer within 10 s, where MCP hosts give up' });
    // Every check a fix sends the reader to is one of the lines printed.
    const named = findings.flatMap((f) => [...(f.fix ?? '').matchAll(/see the (\w+) check/g)].map((m) => m[1]!));
    expect(named.filter((check) => !findings.some((f) => f.check === check))).toEqual([]);
  });
});

describe('the URLs the doctor compares', () => {
  it('takes the address hosts hang /mcp from, and refuses the MCP endpoint itself or a query', () => {
    expect(parseTarget('https://example.com/api/')).toMatchObject({ given: 'https://example.com/api/', base: 'https://example.com/api', origin: 'https://example.com', https: true, loopback: false });
    expect(parseTarget('http://[::1]:3000')).toMatchObject({ base: 'http://[::1]:3000', loopback: true });
    expect(() => parseTarget('https://api.example.com/mcp')).toThrow("give the deployment's address as PUBLIC_URL names it, not its MCP endpoint: portico doctor https://api.example.com");
    expect(() => parseTarget('https://api.example.com/?x=1')).toThrow('must not carry credentials, a query or a fragment');
  });

  it('places the well-known segment before the path (RFC 9728 3.1, RFC 8414 3.1)', () => {
    expect(wellKnownUrl('https://example.com/api/mcp', 'oauth-protected-resource')).toBe('https://example.com/.well-known/oauth-protected-resource/api/mcp');
    expect(wellKnownUrl('https://example.com/', 'oauth-authorization-server')).toBe('https://example.com/.well-known/oauth-authorization-server');
  });

  it('names the first part that differs, and takes an empty path as /', () => {
    expect(difference('https://a.example', 'https://a.example/')).toBeUndefined();
    expect(difference('https://a.example/mcp', 'http://a.example/mcp')).toBe('scheme');
    expect(difference('https://a.example/mcp', 'https://b.example/mcp')).toBe('host');
    expect(difference('https://a.example/mcp', 'https://a.example:8443/mcp')).toBe('port');
    expect(difference('https://a.example/mcp', 'https://a.example/mcp/')).toBe('trailing slash');
    expect(difference('https://a.example/mcp', 'https://a.example/api/mcp')).toBe('path');
    expect(difference('https://a.example/mcp', 42)).toBe('not a URL');
  });

  it("reads a Bearer challenge's parameters, quoted or not, beside another scheme", () => {
    expect(challengeParameters('Basic realm="x", Bearer error="invalid_token", scope="mcp:invoke", resource_metadata="https://a.example/m"')).toEqual({
      error: 'invalid_token',
      scope: 'mcp:invoke',
      resource_metadata: 'https://a.example/m',
    });
    expect(challengeParameters('Basic realm="x"')).toBeUndefined();
  });
});
