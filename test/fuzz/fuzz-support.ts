// Shared pieces of the fuzz suites: the app under test, the route table, hostile values and the invariants every answer keeps.
import { appendFileSync, readFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { expect } from 'vitest';
import { freePort, startApp, type TestApp } from '../support/app.js';

/** The real app on loopback, limits off, PUBLIC_URL equal to its origin (so /mcp accepts its Host). */
export const startFuzzApp = async (env: Record<string, string> = {}): Promise<TestApp> => startApp({ RATE_LIMITS: 'off', LOG_LEVEL: 'error', ...env }, { port: await freePort() });

/** Runs per property: FUZZ_RUNS_SCALE multiplies them (e.g. 10x for a long local run), FUZZ_SEED replays a failure. */
export function runs(numRuns: number): { numRuns: number; seed?: number } {
  const scale = Number(process.env.FUZZ_RUNS_SCALE ?? 1);
  const seed = process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED) };
  return { numRuns: Math.max(1, Math.round(numRuns * scale)), ...seed };
}

/** The error codes and their statuses, read from docs/errors.md: an answer may use only what is documented. */
export const DOCUMENTED_CODES: ReadonlyMap<string, number> = new Map(
  [...readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8').matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]),
);

export interface PostRoute {
  path: string;
  mediaTypes: readonly string[];
  limitBytes: number;
}

/** Every public POST route with the media types and body limits docs/errors.md gives it. */
export const POST_ROUTES: readonly PostRoute[] = [
  { path: '/api/contact', mediaTypes: ['application/json'], limitBytes: 128 * 1024 },
  { path: '/oauth/register', mediaTypes: ['application/json'], limitBytes: 64 * 1024 },
  { path: '/oauth/token', mediaTypes: ['application/x-www-form-urlencoded', 'application/json'], limitBytes: 16 * 1024 },
  { path: '/oauth/authorize', mediaTypes: ['application/x-www-form-urlencoded'], limitBytes: 16 * 1024 },
  { path: '/oauth/revoke', mediaTypes: ['application/x-www-form-urlencoded', 'application/json'], limitBytes: 16 * 1024 },
  { path: '/mcp', mediaTypes: ['application/json'], limitBytes: 256 * 1024 },
];

/** Every public GET route. */
export const GET_ROUTES = [
  '/openapi.json',
  '/api/openapi.json',
  '/api/openapi.yaml',
  '/.well-known/oauth-authorization-server',
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-protected-resource/api/contact',
  '/.well-known/mcp/server-card.json',
  '/mcp/server-card',
  '/healthz',
  '/readyz',
  '/docs',
  '/oauth/authorize',
  '/',
  '/embed',
  '/embed/contact-form.js',
  '/embed/config.json',
] as const;

/** GET routes without CORS (pages, probes): no OPTIONS. */
const WITHOUT_CORS: readonly string[] = ['/healthz', '/readyz', '/docs', '/embed'];

/** The methods each known path serves (HEAD comes with GET). */
export const SERVED: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ...GET_ROUTES.map((path) => [path, WITHOUT_CORS.includes(path) ? ['GET', 'HEAD'] : ['GET', 'HEAD', 'OPTIONS']] as const),
  ...POST_ROUTES.map((route) => [route.path, ['POST', 'OPTIONS']] as const),
  ['/oauth/authorize', ['GET', 'HEAD', 'POST']],
]);

/** The only 5xx the contract documents, per route: 502 and 503 for inquiries, 503 for readiness. */
const DOCUMENTED_5XX: Readonly<Record<string, readonly number[]>> = { '/api/contact': [502, 503], '/readyz': [503] };

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

export interface Exchange {
  method: string;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

/**
 * One request over node:http on a fresh connection, for what fetch refuses: a foreign Host, any method, a body on
 * GET, a path sent byte for byte (no dot-segment or percent normalization).
 */
export function exchange(base: string, { method, path, headers = {}, body }: Exchange): Promise<Answer> {
  const { hostname, port } = new URL(base);
  // node:http sends a GET or DELETE body without any framing unless told its length; chunked bodies carry none.
  const length = body === undefined || headers['transfer-encoding'] ? {} : { 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method, headers: { ...length, ...headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: toHeaders(res.headers), text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The same shape from a fetch Response. */
export async function answerOf(response: Response): Promise<Answer> {
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  return headers;
}

/** FUZZ_STATS=file appends one line per answer (method, path, status), to see what the properties reach: `sort file | uniq -c`. */
const STATS = process.env.FUZZ_STATS;

/**
 * The invariants of section 6 and D9 for one answer on `path`: no undocumented 5xx; every error that is not a
 * redirect, an authorize HTML page or a JSON-RPC answer from /mcp is the JSON Error body with a documented code
 * and that code's status; 405 names the allowed methods; redirects say where. Returns the parsed body, if JSON.
 */
export function expectWellFormed(path: string, answer: Answer, method = 'GET'): any {
  if (STATS) appendFileSync(STATS, `${method} ${path} ${answer.status}\n`);
  const context = `${method} ${path} -> ${answer.status} ${answer.headers.get('content-type')} ${answer.text.slice(0, 300)}`;
  if (answer.status >= 500) expect(DOCUMENTED_5XX[path] ?? [], context).toContain(answer.status);
  if (answer.status >= 300 && answer.status < 400 && answer.status !== 304) expect(answer.headers.get('location'), context).toBeTruthy();
  const type = answer.headers.get('content-type') ?? '';
  const json = /^application\/json/.test(type) && answer.text !== '' ? JSON.parse(answer.text) : undefined;
  if (answer.status < 400 || method === 'HEAD') return json;
  if (path === '/oauth/authorize' && type.startsWith('text/html')) {
    expect([400, 403], context).toContain(answer.status);
    return undefined;
  }
  expect(type, context).toMatch(/^application\/json/);
  if (path === '/mcp' && json && json.jsonrpc !== undefined) {
    expectJsonRpcError(json, context);
    return json;
  }
  expect(answer.headers.get('cache-control'), context).toBe('no-store');
  expect(Object.keys(json ?? {}).sort(), context).toEqual(['error', 'error_description', 'ok']);
  expect(json.ok, context).toBe(false);
  expect(typeof json.error_description, context).toBe('string');
  expect([...DOCUMENTED_CODES.keys()], context).toContain(json.error);
  const documented = json.error === 'insufficient_scope' && path === '/mcp' ? 403 : DOCUMENTED_CODES.get(json.error);
  expect(answer.status, context).toBe(documented);
  if (answer.status === 405) expect(answer.headers.get('allow'), context).toBeTruthy();
  return json;
}

/** A JSON-RPC 2.0 error response object (section 5.1). */
export function expectJsonRpcError(json: any, context: string): void {
  expect(json.jsonrpc, context).toBe('2.0');
  expect(json.id === null || typeof json.id === 'string' || typeof json.id === 'number', context).toBe(true);
  expect(Number.isInteger(json.error?.code), context).toBe(true);
  expect(typeof json.error?.message, context).toBe('string');
}

/** Liveness after a property: the process still answers. */
export async function expectHealthy(api: TestApp): Promise<void> {
  const response = await fetch(`${api.url}/healthz`);
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ status: 'ok' });
}

/**
 * Memory now: resident set size, and the V8 heap in use after a full collection (the leak signal; RSS only
 * shows the allocator's high-water mark). `--expose-gc` is switched on at run time for the collection.
 */
export function memorySample(): { rssBytes: number; heapAfterGcBytes: number } {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  const { rss, heapUsed } = process.memoryUsage();
  return { rssBytes: rss, heapAfterGcBytes: heapUsed };
}

/** Object.prototype is untouched: no request may add a property to every object of the process. */
export function expectPrototypeClean(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).filter((name) => !BUILTIN_PROTO.has(name))).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}
const BUILTIN_PROTO = new Set(Object.getOwnPropertyNames(Object.prototype));

/** Pieces of text that break naive code: bidi controls, combining marks, lone surrogates, NUL, emoji, separators. */
export const HOSTILE_PIECES = [
  '\u200f',
  '\u202e',
  '\u2066',
  '\u0301',
  '\u0338',
  'e\u0301',
  '\ud800',
  '\udfff',
  '\udc00\ud800',
  '\u0000',
  '\u0007',
  '\u001b[31m',
  '\u007f',
  '\u0085',
  '😀',
  '👩‍👩‍👧',
  '🇪🇸',
  '\ufeff',
  '\ufffe',
  '\uffff',
  '\u2028',
  '\u2029',
  '\r\n',
  '\n',
  '\t',
  ' ',
  '\u00a0',
  '\u3000',
  'A',
  'ñ',
  'ß',
  'İ',
  'Ω',
  'ק',
  'ع',
  '中',
  '%00',
  '%',
  '+',
  '&',
  '=',
  '"',
  "'",
  '<',
  '>',
  '\\',
  '/',
  '{',
  '}',
  '[',
  ']',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '${x}',
  '{{x}}',
  '<script>',
  "' OR 1=1 --",
  '../',
  '@',
] as const;

/** Any UTF-16 code unit, so lone surrogates and unpaired halves come up (fast-check's own units keep pairs whole). */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));

/** Strings assembled from hostile pieces, arbitrary code units (lone surrogates included) and any code points. */
export const hostileString = (maxPieces = 12): fc.Arbitrary<string> =>
  fc.oneof(
    fc.array(fc.constantFrom(...HOSTILE_PIECES), { maxLength: maxPieces }).map((pieces) => pieces.join('')),
    fc.string({ unit: codeUnit, maxLength: 24 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
  );

/** Values of every JSON type, for "the wrong type" in any field. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(null, true, false, 0, -1, 1e308, -0, '', [], {}, [null], { '': '' }));

/** A JSON text: any value, hostile strings, or text that is not JSON at all. */
export const jsonText: fc.Arbitrary<string> = fc.oneof(
  anyJson.map((value) => JSON.stringify(value)),
  fc.anything({ maxDepth: 3, withNullPrototype: true, withObjectString: true }).map((value) => JSON.stringify(value) ?? 'null'),
  fc.dictionary(hostileString(), fc.oneof(hostileString(), anyJson), { maxKeys: 6 }).map((value) => JSON.stringify(value)),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ unit: codeUnit, maxLength: 60 }),
  fc.constantFrom('', ' ', '{', '[', '{"a":', 'null', 'nul', '1e99999', '"\\ud800"', '{"a":1,"a":2}', '\ufeff{}', '{}\u0000', '{"\\u0000":1}'),
);

/** JSON text nested `depth` levels deep, as arrays or objects, around `core`. */
export function nested(depth: number, kind: 'array' | 'object', core = '1'): string {
  return kind === 'array' ? `${'['.repeat(depth)}${core}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}${core}${'}'.repeat(depth)}`;
}

/**
 * True when a value holds what the JSON parser refuses as prototype poisoning (Fastify's defaults:
 * a `__proto__` key anywhere, or a `constructor` object with a `prototype` key).
 */
export function poisonsPrototypes(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    if (key === '__proto__') return true;
    if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) return true;
    if (poisonsPrototypes(child)) return true;
  }
  return false;
}

/** A JSON object text whose keys include the prototype-pollution names, at the top level and nested. */
export const pollutingJson = (base: Record<string, unknown> = {}): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.constantFrom('__proto__', 'constructor', 'prototype'),
      fc.constantFrom('{"polluted":true}', '{"prototype":{"polluted":true}}', '{"__proto__":{"polluted":true}}', '"x"', 'null', '[{"__proto__":{"polluted":1}}]'),
      fc.boolean(),
    )
    .map(([key, value, atTop]) => {
      const fields = JSON.stringify(base).slice(1, -1);
      const member = `"${key}":${value}`;
      return atTop ? `{${[fields, member].filter(Boolean).join(',')}}` : `{${[fields, `"nested":{${member}}`].filter(Boolean).join(',')}}`;
    });

/** Content types a client might send by mistake or on purpose; undefined sends none. */
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constantFrom(
    undefined,
    'application/json',
    'application/x-www-form-urlencoded',
    'text/plain',
    'text/html',
    'multipart/form-data; boundary=x',
    'application/xml',
    'application/json; charset=utf-16',
    'APPLICATION/JSON',
    'application/json;;;=',
    'application/jsonx',
    'application/*',
    '*/*',
    'application/ld+json',
    'application/x-www-form-urlencoded; charset=iso-8859-1',
    'application',
    '/',
    ';',
    ' ',
    'text/event-stream',
  ),
  fc.tuple(fc.stringMatching(/^[a-z]{1,10}\/[a-z+.-]{1,12}$/), fc.stringMatching(/^(; ?[a-z]{1,8}=[a-z0-9"-]{0,8})?$/)).map(([type, params]) => type + params),
);
