// Methods and paths under fuzzing: 405 with Allow on known paths, 404 elsewhere, and every GET route served whatever the query and headers.
import { METHODS } from 'node:http';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { contentType, exchange, expectHealthy, expectPrototypeClean, expectWellFormed, GET_ROUTES, hostileString, jsonText, runs, SERVED, startFuzzApp } from './fuzz-support.js';

const KNOWN_PATHS = [...SERVED.keys()];
/** CONNECT asks for a tunnel, not a resource: node:http hands it to a 'connect' listener, never to the app. */
const FOREIGN_METHODS = METHODS.filter((method) => method !== 'CONNECT');
/** Routes that send ETag and answer If-None-Match with 304. */
const WITH_ETAG = new Set(GET_ROUTES.filter((path) => !['/healthz', '/readyz', '/docs', '/oauth/authorize', '/', '/embed', '/embed/config.json'].includes(path)));

/** A path as bytes on the wire: printable ASCII kept (stray % included), anything else percent-encoded as UTF-8. */
const onTheWire = (path: string) => path.replace(/[^\x21-\x7e]/gu, (c) => [...Buffer.from(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
/** What a router that percent-decodes would match, or the path itself when it does not decode. */
const decoded = (path: string) => {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
};

const segment = fc.oneof(
  fc.webSegment(),
  hostileString(3).map((s) => s.replace(/[?#]/g, '')),
  fc.constantFrom('%', '%ZZ', '%00', '%2e%2e', '..', '.', '', '%c0%ae', '%E0%A4%A', 'healthz', 'mcp', 'oauth', '.well-known', 'api', 'docs', 'assets', ';x', '%2F'),
);
const randomPath = fc
  .array(segment, { minLength: 1, maxLength: 5 })
  .map((segments) => onTheWire(`/${segments.join('/')}`))
  // Beside the routes: the pages' digest-named files, and /docs/, which leads to /docs.
  .filter((path) => !KNOWN_PATHS.includes(path) && !KNOWN_PATHS.includes(decoded(path)) && !/^\/(docs\/assets\/|embed\/assets\/|embed\/contact-form\.[0-9a-f]{16}\.js$|docs\/$)/.test(decoded(path)));
const query = fc.oneof(
  fc.constant(''),
  fc.array(fc.tuple(hostileString(2), hostileString(3)), { maxLength: 4 }).map((pairs) => `?${new URLSearchParams(pairs)}`),
  fc.constantFrom('?', '?%ZZ', '?a[b]=c&__proto__[x]=1', '?=&=', `?${'q'.repeat(4000)}`),
);

describe('methods and paths under fuzzing', () => {
  let api: TestApp;
  const etags = new Map<string, string>();

  beforeAll(async () => {
    api = await startFuzzApp();
    for (const path of WITH_ETAG) {
      const response = await fetch(`${api.url}${path}`);
      etags.set(path, response.headers.get('etag')!);
      // Read to the end: an answer left unread holds its connection open until the collector finds it.
      await response.arrayBuffer();
    }
  });
  afterEach(async () => {
    await expectHealthy(api);
    expectPrototypeClean();
  });
  afterAll(() => api.close());

  it('answers a method a known path does not serve 405 method_not_allowed with Allow naming what it serves, with or without a body', async () => {
    const pick = fc.constantFrom(...KNOWN_PATHS).chain((path) => fc.tuple(fc.constant(path), fc.constantFrom(...FOREIGN_METHODS.filter((m) => !SERVED.get(path)!.includes(m)))));
    const body = fc.option(fc.tuple(contentType, jsonText), { freq: 2 });
    await fc.assert(
      fc.asyncProperty(pick, body, async ([path, method], withBody) => {
        const headers: Record<string, string> = withBody?.[0] === undefined ? {} : { 'content-type': withBody[0] };
        const answer = await exchange(api.url, { method, path, headers, ...(withBody ? { body: withBody[1] } : {}) });
        const context = `${method} ${path} ${JSON.stringify(headers)} ${withBody ? JSON.stringify(withBody[1]).slice(0, 80) : '(no body)'} -> ${answer.status} ${answer.text.slice(0, 200)}`;
        const json = expectWellFormed(path, answer, method);
        expect(answer.status, context).toBe(405);
        if (method !== 'HEAD') expect(json.error, context).toBe('method_not_allowed');
        const allow = (answer.headers.get('allow') ?? '').split(', ');
        for (const served of SERVED.get(path)!.filter((m) => m !== 'HEAD')) expect(allow, context).toContain(served);
        expect(allow, context).not.toContain(method);
      }),
      runs(150),
    );
  });

  // A path whose percent-escapes do not decode is not a path at all (RFC 3986 section 2.1): 400, not 404.
  it('answers any unknown path 404 not_found in the Error body (400 invalid_request when it does not decode), for any method, query and body', async () => {
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND');
    const body = fc.option(fc.tuple(contentType, jsonText), { freq: 3 });
    await fc.assert(
      fc.asyncProperty(randomPath, query, method, body, async (path, search, verb, withBody) => {
        const headers: Record<string, string> = withBody?.[0] === undefined ? {} : { 'content-type': withBody[0] };
        const answer = await exchange(api.url, { method: verb, path: `${path}${search}`, headers, ...(withBody ? { body: withBody[1] } : {}) });
        const context = `${verb} ${path}${search.slice(0, 60)} ${JSON.stringify(headers)} ${withBody ? JSON.stringify(withBody[1]).slice(0, 80) : '(no body)'} -> ${answer.status} ${answer.text.slice(0, 200)}`;
        const json = expectWellFormed(path, answer, verb);
        const decodes = (() => {
          try {
            decodeURIComponent(path);
            return true;
          } catch {
            return false;
          }
        })();
        expect(answer.status, context).toBe(decodes ? 404 : 400);
        if (verb !== 'HEAD') expect(json.error, context).toBe(decodes ? 'not_found' : 'invalid_request');
      }),
      runs(150),
    );
  });

  it('serves every GET route 200, or 304 for a matching If-None-Match, whatever the query string and request headers', async () => {
    const routes = GET_ROUTES.filter((path) => path !== '/oauth/authorize');
    const headers = fc.record(
      {
        accept: fc.constantFrom('*/*', 'text/html', 'application/json', 'application/xml;q=0', '', 'garbage'),
        'accept-encoding': fc.constantFrom('gzip', 'br, zstd', 'identity;q=0', '*;q=0', 'x'),
        'accept-language': fc.stringMatching(/^[a-zA-Z,;=.*\- 0-9]{0,30}$/),
        origin: fc.oneof(fc.webUrl(), fc.constantFrom('null', 'https://evil.example')),
        'if-none-match': fc.oneof(fc.constantFrom('*', 'W/"x"', '"x", *', '', ',,,', '"'), fc.stringMatching(/^[\x21-\x7e]{0,40}$/)),
        'if-modified-since': fc.constantFrom('Thu, 01 Jan 1970 00:00:00 GMT', 'yesterday', ''),
        range: fc.constantFrom('bytes=0-10', 'bytes=-1', 'bytes=99999999-', 'lines=1-2'),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), query, headers, fc.boolean(), fc.constantFrom('GET', 'HEAD'), async (path, search, sent, realEtag, method) => {
        const etag = etags.get(path);
        const all: Record<string, string> = { ...(sent as Record<string, string>), ...(realEtag && etag ? { 'if-none-match': etag } : {}) };
        const answer = await exchange(api.url, { method, path: `${path}${search}`, headers: all });
        const context = `${method} ${path}${search.slice(0, 60)} ${JSON.stringify(all)} -> ${answer.status} ${answer.text.slice(0, 200)}`;
        expectWellFormed(path, answer, method);
        const tags = (all['if-none-match'] ?? '').split(',').map((tag) => tag.trim().replace(/^W\//, ''));
        const matches = etag !== undefined && all['if-none-match'] !== undefined && (tags.includes('*') || tags.includes(etag));
        expect(answer.status, context).toBe(matches ? 304 : 200);
        if (method === 'HEAD' || matches) expect(answer.text, context).toBe('');
      }),
      runs(120),
    );
  });

  it('answers any CORS preflight on a route that has a policy 204, granting only what the policy allows', async () => {
    const withCors = KNOWN_PATHS.filter((path) => SERVED.get(path)!.includes('OPTIONS'));
    const preflight = fc.record(
      {
        origin: fc.oneof(
          fc.webUrl(),
          fc.constantFrom('null', 'https://evil.example', '*'),
          hostileString(2).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
        ),
        'access-control-request-method': fc.constantFrom(...FOREIGN_METHODS, 'post', ''),
        'access-control-request-headers': fc.stringMatching(/^[a-zA-Z0-9, -]{0,60}$/),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...withCors), preflight, async (path, headers) => {
        const answer = await exchange(api.url, { method: 'OPTIONS', path, headers: headers as Record<string, string> });
        expectWellFormed(path, answer, 'OPTIONS');
        expect(answer.status, `${path} ${JSON.stringify(headers)} -> ${answer.status} ${answer.text}`).toBe(204);
        const allowed = answer.headers.get('access-control-allow-origin');
        if (allowed !== null && allowed !== '*') expect(allowed).toBe(headers.origin);
        expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
      }),
      runs(80),
    );
  });
});
