// Huge and malformed headers: 431, 400 or a closed connection, never a 5xx, and the process stays healthy.
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { DOCUMENTED_CODES, exchange, expectHealthy, expectWellFormed, POST_ROUTES, runs, startFuzzApp } from './fuzz-support.js';
import { rawExchange, type RawOutcome } from './raw-http.js';

const PATHS = ['/healthz', '/openapi.json', '/oauth/authorize', ...POST_ROUTES.map((route) => route.path)];
const methodOf = (path: string) => (POST_ROUTES.some((route) => route.path === path) ? 'POST' : 'GET');
const mediaTypeOf = (path: string) => POST_ROUTES.find((route) => route.path === path)?.mediaTypes[0] ?? 'application/json';

/** Bytes that may not appear in a header name (RFC 9110 section 5.6.2: a name is a token), and a few that may. */
const NAME_BYTES = [
  '(',
  ')',
  ',',
  '/',
  ':',
  ';',
  '<',
  '=',
  '>',
  '?',
  '@',
  '[',
  '\\',
  ']',
  '{',
  '}',
  '"',
  ' ',
  '\t',
  '\x00',
  '\x01',
  '\x1f',
  '\x7f',
  '\x80',
  '\xff',
  '\xe9',
  '!',
  '#',
  '$',
  '%',
  '&',
  "'",
  '*',
  '+',
  '.',
  '^',
  '_',
  '`',
  '|',
  '~',
];
const VALUE_BYTES = ['\x00', '\x01', '\x08', '\x0b', '\x0c', '\x1b', '\x7f', '\x80', '\xff', '\r', '\n', '\t', ' ', 'a', ':', '"'];

/** No answer is a 5xx; each is a client error the server chose, or the connection was simply closed. */
function expectRefusedOrServed(outcome: RawOutcome, context: string): void {
  expect(outcome.responses.length > 0 || outcome.closed, `no answer and the connection stayed open: ${context}`).toBe(true);
  for (const response of outcome.responses) expect(response.status, `${context} -> ${response.status} ${response.text.slice(0, 200)}`).toBeLessThan(500);
}

describe('huge and malformed headers', () => {
  let api: TestApp;
  let host: string;
  const head = (method: string, path: string, lines: string[]) => `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n${lines.map((line) => `${line}\r\n`).join('')}`;

  beforeAll(async () => {
    api = await startFuzzApp();
    host = new URL(api.url).host;
  });
  afterEach(() => expectHealthy(api));
  afterAll(() => api.close());

  it('answers a header value over the 16 KiB limit (a 20 KB value among them) 431 or closes the connection, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PATHS),
        fc.oneof(fc.constant(20_000), fc.integer({ min: 16_500, max: 80_000 })),
        fc.constantFrom('x-padding', 'cookie', 'authorization', 'accept-language', 'user-agent'),
        async (path, size, name) => {
          const outcome = await rawExchange(api.url, `${head(methodOf(path), path, [`${name}: ${'a'.repeat(size)}`, 'Connection: close'])}\r\n`);
          const context = `${name} of ${size} bytes on ${path}`;
          expectRefusedOrServed(outcome, context);
          for (const response of outcome.responses) expect([400, 413, 431], context).toContain(response.status);
        },
      ),
      runs(60),
    );
  });

  it('answers 100 to 300 headers like any other request (the 200-header request among them)', async () => {
    const names = fc.uniqueArray(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), { minLength: 100, maxLength: 300 });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS), names, async (path, headerNames) => {
        const headers = Object.fromEntries(headerNames.map((name, i) => [name, `v${i}`]));
        const body = methodOf(path) === 'POST' ? '{}' : undefined;
        const answer = await exchange(api.url, {
          method: methodOf(path),
          path,
          headers: { ...headers, 'content-type': mediaTypeOf(path), accept: 'application/json, text/event-stream' },
          ...(body ? { body } : {}),
        });
        expectWellFormed(path, answer, methodOf(path));
        expect(answer.status, `${headerNames.length} headers on ${path} -> ${answer.text.slice(0, 200)}`).not.toBe(431);
      }),
      runs(60),
    );
  });

  it('answers header names with characters a token may not hold, and values with control bytes, 400 or closes; never a 5xx', async () => {
    const name = fc.array(fc.oneof(fc.constantFrom(...NAME_BYTES), fc.constantFrom('x', 'a', '-')), { minLength: 0, maxLength: 6 }).map((parts) => parts.join(''));
    const value = fc.array(fc.oneof(fc.constantFrom(...VALUE_BYTES), fc.constantFrom('v', 'value')), { maxLength: 6 }).map((parts) => parts.join(''));
    const lineEnd = fc.constantFrom('\r\n', '\n', '\r');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS), name, value, lineEnd, fc.boolean(), async (path, headerName, headerValue, eol, folded) => {
        const line = `${headerName}: ${headerValue}${folded ? `${eol} continued` : ''}`;
        const request = `${methodOf(path)} ${path} HTTP/1.1${eol}Host: ${host}${eol}${line}${eol}Content-Length: 0${eol}Connection: close${eol}${eol}`;
        expectRefusedOrServed(await rawExchange(api.url, request), JSON.stringify(line));
      }),
      runs(150),
    );
  });

  it('answers a Content-Length that lies (longer or shorter than the body, negative, huge, repeated, beside chunked) with 4xx or a close, never a 5xx', async () => {
    const lie = fc.oneof(
      fc.record({ kind: fc.constant('longer' as const), by: fc.integer({ min: 1, max: 5000 }) }),
      fc.record({ kind: fc.constant('shorter' as const), by: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ kind: fc.constant('header' as const), value: fc.constantFrom('-1', 'abc', '1e3', '0x10', '99999999999999999999', '2, 3', ' 2', '+2', '') }),
      fc.record({ kind: fc.constant('twice' as const), by: fc.integer({ min: 1, max: 10 }) }),
      fc.record({ kind: fc.constant('chunked' as const), by: fc.integer({ min: 0, max: 10 }) }),
    );
    const trailer = fc.constantFrom('', 'garbage', `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`, '\r\n\r\n');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS), lie, trailer, async (path, how, extra) => {
        const body = path === '/mcp' ? '{"jsonrpc":"2.0","id":1,"method":"ping"}' : '{"grant_type":"client_credentials"}';
        const length = Buffer.byteLength(body);
        const lines = [`Content-Type: ${mediaTypeOf(path)}`, 'Accept: application/json, text/event-stream'];
        if (how.kind === 'longer') lines.push(`Content-Length: ${length + how.by}`);
        if (how.kind === 'shorter') lines.push(`Content-Length: ${Math.max(0, length - how.by)}`);
        if (how.kind === 'header') lines.push(`Content-Length: ${how.value}`);
        if (how.kind === 'twice') lines.push(`Content-Length: ${length}`, `Content-Length: ${length + how.by}`);
        if (how.kind === 'chunked') lines.push(`Content-Length: ${length + how.by}`, 'Transfer-Encoding: chunked');
        const outcome = await rawExchange(api.url, `${head(methodOf(path), path, lines)}\r\n${body}${extra}`);
        const context = `${path} ${JSON.stringify(how)} + ${JSON.stringify(extra)}`;
        expectRefusedOrServed(outcome, context);
        // The only answers the lie may earn are refusals, or the answer to the bytes the length did cover.
        for (const response of outcome.responses) expect(response.status, context).toBeLessThan(500);
      }),
      runs(120),
    );
  });

  it('answers any value of the headers the routes read (Authorization, Cookie, Origin, Accept-Language, X-Forwarded-For, ...) without a 5xx', async () => {
    const latin1 = fc.string({
      unit: fc
        .integer({ min: 0x20, max: 0xff })
        .filter((c) => c !== 0x7f)
        .map((c) => String.fromCharCode(c)),
      maxLength: 60,
    });
    const value = fc.oneof(
      latin1,
      fc.constantFrom('', 'Bearer', 'Bearer x', 'Basic Og==', 'Basic ' + Buffer.from('%:%').toString('base64'), '*', 'null', '1.1.1.1, ::1, garbage', 'en;q=abc, *;q=-1', 'a=b; a=c; =; ;'),
    );
    const name = fc.constantFrom(
      'authorization',
      'cookie',
      'origin',
      'accept-language',
      'x-forwarded-for',
      'forwarded',
      'idempotency-key',
      'mcp-protocol-version',
      'mcp-session-id',
      'accept',
      'if-none-match',
      'sec-fetch-site',
      'content-language',
      'upgrade',
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS), fc.uniqueArray(fc.tuple(name, value), { selector: ([n]) => n, maxLength: 5 }), async (path, pairs) => {
        const method = methodOf(path);
        const headers = { 'content-type': mediaTypeOf(path), ...Object.fromEntries(pairs) };
        const body = method === 'POST' ? (path === '/mcp' ? '{"jsonrpc":"2.0","id":1,"method":"ping"}' : '{}') : undefined;
        const answer = await exchange(api.url, { method, path, headers, ...(body ? { body } : {}) });
        expectWellFormed(path, answer, method);
      }),
      runs(150),
    );
  });

  // D9: even what the HTTP parser refuses before any route runs gets the one error body (Fastify clientErrorHandler, node:http checkExpectation).
  it('answers what node:http refuses before the app (431, 400, 417) in the Error body with a documented code, as every error (D9)', async () => {
    const refused = [
      ['a 20 KB header', `x-padding: ${'a'.repeat(20_000)}`],
      ['a header name with a space', 'x y: 1'],
      ['a parenthesis in a header name', 'x(y): 1'],
      ['a NUL in a header value', 'x-a: a\x00b'],
      ['an obs-fold continuation line', 'x-a: a\r\n b'],
      ['a negative Content-Length', 'Content-Length: -1'],
      ['two different Content-Lengths', 'Content-Length: 1\r\nContent-Length: 2'],
      ['an Expect other than 100-continue', 'Expect: teapot'],
    ];
    const wrong: string[] = [];
    for (const [what, line] of refused) {
      const [response] = (await rawExchange(api.url, `${head('GET', '/healthz', [line!, 'Connection: close'])}\r\n`)).responses;
      const body = (() => {
        try {
          return JSON.parse(response?.text ?? '');
        } catch {
          return undefined;
        }
      })();
      const shaped =
        /^application\/json/.test(response?.headers.get('content-type') ?? '') && body && Object.keys(body).sort().join() === 'error,error_description,ok' && DOCUMENTED_CODES.has(body.error);
      if (!response || response.status >= 500 || !shaped) wrong.push(`${what} -> ${response?.status} ${response?.headers.get('content-type')} ${response?.text}`);
    }
    expect(wrong).toEqual([]);
  });
});
