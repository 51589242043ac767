// Every POST route under arbitrary bodies: any JSON, any content type, deep nesting, bodies at and over the limit (413), bounded memory.
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import {
  answerOf,
  contentType,
  exchange,
  expectHealthy,
  expectPrototypeClean,
  expectWellFormed,
  hostileString,
  jsonText,
  memorySample,
  nested,
  POST_ROUTES,
  pollutingJson,
  runs,
  startFuzzApp,
  type PostRoute,
} from './fuzz-support.js';

const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };
const route = fc.constantFrom(...POST_ROUTES);

/** A form body: known and random names, repeated names, hostile values, broken escapes. */
const formText: fc.Arbitrary<string> = fc.oneof(
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom('grant_type', 'client_id', 'token', 'consent', 'scope', 'resource', '__proto__', 'constructor'), hostileString(3)), hostileString()), { maxLength: 8 })
    .map((pairs) => new URLSearchParams(pairs).toString()),
  fc.constantFrom('%', '%ZZ', 'a=%E0%A4%A', '&&&', '=', 'a', 'a=1&a=2&a=3', '__proto__[x]=1', 'a[b][c]=d', '\u0000=\u0000', '+=+'),
);

/** The member a body puts deep nesting under, or none (the nesting is the whole body). */
const NESTING_SITES: Readonly<Record<string, (deep: string) => string>> = {
  whole: (deep) => deep,
  field: (deep) => `{"name":${deep},"email":"a@example.com","message":"m","privacy":true}`,
  metadata: (deep) => `{"grant_types":["client_credentials"],"client_name":${deep}}`,
  params: (deep) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"contact_service","arguments":${deep}}}`,
  id: (deep) => `{"jsonrpc":"2.0","id":${deep},"method":"ping"}`,
};

/** A JSON (or form) body of exactly `bytes` bytes for the route. */
function bodyOfSize(route: PostRoute, bytes: number, mediaType: string): string {
  const open = mediaType === 'application/json' ? '{"message":"' : 'message=';
  const close = mediaType === 'application/json' ? '"}' : '';
  return `${open}${'m'.repeat(Math.max(0, bytes - open.length - close.length))}${close}`;
}

const MB = 1024 * 1024;
/** No leak: the heap in use after a collection is back near where it started, and RSS grew less than 150 MB. */
function expectMemoryBounded(before: ReturnType<typeof memorySample>, after: ReturnType<typeof memorySample>): void {
  const grown = `rss +${Math.round((after.rssBytes - before.rssBytes) / MB)} MB, heap after gc +${Math.round((after.heapAfterGcBytes - before.heapAfterGcBytes) / MB)} MB`;
  expect(after.heapAfterGcBytes - before.heapAfterGcBytes, grown).toBeLessThan(32 * MB);
  expect(after.rssBytes - before.rssBytes, grown).toBeLessThan(150 * MB);
}

describe('every POST route under fuzzed bodies', () => {
  let api: TestApp;
  const post = (path: string, body: string, type: string | undefined) =>
    fetch(`${api.url}${path}`, { method: 'POST', headers: { ...MCP_ACCEPT, ...(type === undefined ? {} : { 'content-type': type }) }, body }).then(answerOf);

  beforeAll(async () => {
    api = await startFuzzApp();
  });
  afterEach(async () => {
    await expectHealthy(api);
    expectPrototypeClean();
  });
  afterAll(() => api.close());

  it("answers any JSON or form text under the route's own media types with a documented status and the Error body", async () => {
    await fc.assert(
      fc.asyncProperty(route, fc.oneof(jsonText, formText), fc.nat(), async (target, body, pick) => {
        const type = target.mediaTypes[pick % target.mediaTypes.length];
        const answer = await post(target.path, body, type);
        expectWellFormed(target.path, answer, 'POST');
      }),
      runs(150),
    );
  });

  it("answers any content type with the route's own answer or 415, never a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(route, contentType, fc.oneof(jsonText, formText), async (target, type, body) => {
        const answer = await post(target.path, body, type);
        const json = expectWellFormed(target.path, answer, 'POST');
        const mediaType = type?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
        if (!target.mediaTypes.includes(mediaType)) {
          expect(answer.status, `${target.path} ${type} -> ${answer.text}`).toBe(415);
          expect(json.error).toBe('unsupported_media_type');
        }
      }),
      runs(120),
    );
  });

  it('keeps Object.prototype clean whatever prototype-pollution keys a JSON body carries', async () => {
    const jsonRoutes = POST_ROUTES.filter((target) => target.mediaTypes.includes('application/json'));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...jsonRoutes), pollutingJson({ grant_type: 'client_credentials', jsonrpc: '2.0', id: 1, method: 'ping' }), async (target, body) => {
        const answer = await post(target.path, body, 'application/json');
        expectWellFormed(target.path, answer, 'POST');
        expect(answer.status, `${target.path} ${body} -> ${answer.text}`).toBeLessThan(500);
        expectPrototypeClean();
      }),
      runs(80),
    );
  });

  it('answers JSON nested thousands of levels deep ([[[...]]] and {"a":{"a":...}}) without a 5xx or a stalled process', async () => {
    const site = fc.constantFrom(...Object.keys(NESTING_SITES));
    const depth = fc.oneof(fc.constant(5000), fc.integer({ min: 500, max: 30_000 }));
    const before = memorySample();
    await fc.assert(
      fc.asyncProperty(route, site, depth, fc.constantFrom('array' as const, 'object' as const), async (target, where, levels, kind) => {
        const body = NESTING_SITES[where]!(nested(levels, kind));
        const answer = await post(target.path, body, target.mediaTypes.includes('application/json') ? 'application/json' : target.mediaTypes[0]);
        expectWellFormed(target.path, answer, 'POST');
        if (Buffer.byteLength(body) > target.limitBytes) expect(answer.status, `${target.path} ${where} ${kind} x${levels}`).toBe(413);
      }),
      runs(80),
    );
    expectMemoryBounded(before, memorySample());
  });

  it('answers a body just over the route limit 413 payload_too_large and one at or under it not 413, framed by length or chunked, with memory bounded', async () => {
    const before = memorySample();
    await fc.assert(
      fc.asyncProperty(route, fc.integer({ min: -2048, max: 4096 }), fc.boolean(), fc.nat(), async (target, overBy, chunked, pick) => {
        const mediaType = target.mediaTypes[pick % target.mediaTypes.length]!;
        const size = target.limitBytes + overBy;
        const body = bodyOfSize(target, size, mediaType);
        expect(Buffer.byteLength(body)).toBe(size);
        const headers = { ...MCP_ACCEPT, 'content-type': mediaType, ...(chunked ? { 'transfer-encoding': 'chunked' } : {}) };
        const answer = await exchange(api.url, { method: 'POST', path: target.path, headers, body });
        const json = expectWellFormed(target.path, answer, 'POST');
        const context = `${target.path} ${mediaType} ${size} bytes (limit ${target.limitBytes})${chunked ? ' chunked' : ''} -> ${answer.status} ${answer.text.slice(0, 200)}`;
        if (overBy > 0) {
          expect(answer.status, context).toBe(413);
          expect(json.error, context).toBe('payload_too_large');
        } else {
          expect(answer.status, context).not.toBe(413);
        }
      }),
      runs(150),
    );
    expectMemoryBounded(before, memorySample());
  }, 60_000);
});
