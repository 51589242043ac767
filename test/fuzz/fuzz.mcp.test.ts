// POST /mcp under fuzzed JSON-RPC: answers are JSON-RPC objects or the Error body, ids echo, never a 5xx; Host, Origin and Bearer refusals hold for any value.
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { answerOf, anyJson, exchange, expectHealthy, expectPrototypeClean, expectWellFormed, hostileString, poisonsPrototypes, runs, startFuzzApp } from './fuzz-support.js';

const VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];
const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'server/discover',
  'logging/setLevel',
  'completion/complete',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'rpc.discover',
];
const ABSENT = Symbol('absent');
type Maybe<T> = T | typeof ABSENT;
const maybe = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<Maybe<T>> => fc.oneof({ weight: 1, arbitrary: fc.constant(ABSENT) }, { weight: 3, arbitrary });

const method = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: hostileString(4) }, { weight: 1, arbitrary: anyJson });
const id = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), hostileString(3), fc.constantFrom(null, 1.5, -0, 1e21, true, {}, []));
const meta = fc.record({ 'io.modelcontextprotocol/protocolVersion': fc.oneof(fc.constantFrom(...VERSIONS), anyJson), 'io.modelcontextprotocol/clientCapabilities': anyJson }, { requiredKeys: [] });
const inquiryArgs = fc.record(
  {
    name: fc.oneof(hostileString(), anyJson),
    email: fc.oneof(fc.constant('bot@example.com'), hostileString(), anyJson),
    message: fc.oneof(hostileString(30), anyJson),
    privacy: fc.oneof(fc.constant(true), anyJson),
    locale: fc.oneof(fc.constantFrom('en', 'xx'), anyJson),
  },
  { requiredKeys: [] },
);
const params = fc.oneof(
  anyJson,
  fc.record({ protocolVersion: fc.oneof(fc.constantFrom(...VERSIONS), hostileString(2), anyJson), capabilities: anyJson, clientInfo: anyJson }, { requiredKeys: [] }),
  fc.record({ name: fc.oneof(fc.constant('contact_service'), hostileString(3), anyJson), arguments: fc.oneof(inquiryArgs, anyJson), _meta: meta }, { requiredKeys: [] }),
  fc.record({ uri: fc.oneof(fc.constant('ui://portico/contact-form'), hostileString(), anyJson), _meta: meta }, { requiredKeys: [] }),
);
const message = fc.record({ jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: anyJson }), id: maybe(id), method: maybe(method), params: maybe(params) });
const headers = fc.record(
  {
    accept: fc.constantFrom('application/json, text/event-stream', 'application/json', 'text/event-stream', '*/*', 'text/html', ''),
    'mcp-protocol-version': fc.oneof(fc.constantFrom(...VERSIONS), fc.stringMatching(/^[\x20-\x7e]{0,12}$/)),
    'mcp-method': fc.oneof(fc.constantFrom(...METHODS), fc.stringMatching(/^[\x21-\x7e]{1,12}$/)),
    'mcp-name': fc.oneof(fc.constant('contact_service'), fc.stringMatching(/^[\x21-\x7e]{1,12}$/)),
  },
  { requiredKeys: [] },
);

const withoutAbsent = (value: Record<string, unknown>) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== ABSENT));
const isRequestId = (value: unknown) => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

describe('POST /mcp under fuzzing', () => {
  let api: TestApp;
  const mcp = (body: string, extra: Record<string, string> = {}) =>
    fetch(`${api.url}/mcp`, { method: 'POST', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...extra }, body }).then(answerOf);

  beforeAll(async () => {
    api = await startFuzzApp();
  });
  afterEach(async () => {
    await expectHealthy(api);
    expectPrototypeClean();
  });
  afterAll(() => api.close());

  it('answers any JSON-RPC-shaped message with a JSON-RPC response echoing its id, 204 for a notification, or a JSON-RPC error; never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(message, headers, async (fields, extra) => {
        const body = withoutAbsent(fields);
        const answer = await mcp(JSON.stringify(body), extra as Record<string, string>);
        const context = `${JSON.stringify(body)} ${JSON.stringify(extra)} -> ${answer.status} ${answer.text.slice(0, 300)}`;
        const json = expectWellFormed('/mcp', answer, 'POST');
        expect([200, 204, 400, 406], context).toContain(answer.status);
        if (answer.status === 204) {
          expect(answer.text, context).toBe('');
          expect(isRequestId(body.id) && typeof body.method === 'string', `a request with an id was answered 204: ${context}`).toBe(false);
          return;
        }
        expect(json?.jsonrpc, context).toBe('2.0');
        expect('result' in json !== 'error' in json, context).toBe(true);
        if (json.error) expect(Number.isInteger(json.error.code) && typeof json.error.message === 'string', context).toBe(true);
        // Compared as sent on the wire: JSON has no -0.
        if (answer.status === 200 && isRequestId(body.id)) expect(json.id, context).toEqual(JSON.parse(JSON.stringify(body.id)));
      }),
      runs(150),
    );
  });

  it('answers tools/call of contact_service with any arguments 200: a tool result (isError when refused) or a JSON-RPC error; prototype-poisoning arguments 400 -32700', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(inquiryArgs, anyJson), fc.constantFrom('2025-11-25', '2025-06-18', '2025-03-26'), async (args, version) => {
        const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'contact_service', arguments: args } };
        const answer = await mcp(JSON.stringify(call), { 'mcp-protocol-version': version });
        const context = `${JSON.stringify(args)} -> ${answer.status} ${answer.text.slice(0, 300)}`;
        const json = expectWellFormed('/mcp', answer, 'POST');
        if (poisonsPrototypes(args)) {
          // The JSON parser refuses prototype-poisoning keys before the SDK sees them: a Parse error.
          expect([answer.status, json.error?.code], context).toEqual([400, -32700]);
          return;
        }
        expect(answer.status, context).toBe(200);
        expect(json.id, context).toBe(7);
        if (json.result) {
          expect(Array.isArray(json.result.content), context).toBe(true);
          if (json.result.isError !== true) expect(json.result.structuredContent, context).toEqual({ ok: true });
        } else {
          expect(Number.isInteger(json.error.code), context).toBe(true);
        }
      }),
      runs(120),
    );
  });

  // JSON-RPC 2.0 section 5.1; the SDK says -32603 here (typescript-sdk#2284) and src/modules/mcp/sdk-errors.ts corrects it.
  it('answers params of the wrong shape -32602 Invalid params (or -32600/-32601), never -32603 Internal error', async () => {
    const shaped = fc.constantFrom(
      ['initialize', ['protocolVersion', 'capabilities', 'clientInfo']],
      ['tools/list', ['cursor']],
      ['resources/list', ['cursor']],
      ['resources/templates/list', ['cursor']],
      ['resources/read', ['uri']],
      ['tools/call', ['name', 'arguments']],
      ['prompts/list', ['cursor']],
    ) as fc.Arbitrary<[string, string[]]>;
    const request = shaped.chain(([name, fields]) => fc.tuple(fc.constant(name), fc.record(Object.fromEntries(fields.map((field) => [field, anyJson])), { requiredKeys: [] })));
    await fc.assert(
      fc.asyncProperty(request, fc.constantFrom('2025-11-25', '2025-06-18', '2025-03-26'), async ([name, params], version) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 3, method: name, params });
        const answer = await mcp(body, { 'mcp-protocol-version': version });
        const context = `${body} (${version}) -> ${answer.status} ${answer.text.slice(0, 200)}`;
        const json = expectWellFormed('/mcp', answer, 'POST');
        expect([200, 400], context).toContain(answer.status);
        if (json.error) expect(json.error.code, context).not.toBe(-32603);
      }),
      runs(100),
    );
  });

  it('refuses any Host that is not this server and any Origin that is not allowed with 403 forbidden (D3)', async () => {
    const port = new URL(api.url).port;
    const ours = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
    const host = fc.oneof(
      fc.constantFrom(...ours, `LOCALHOST:${port}`, '127.0.0.1', `127.0.0.1:${Number(port) + 1}`, `127.0.0.1.:${port}`, `evil.example:${port}`, `0.0.0.0:${port}`),
      fc.domain(),
      fc.webAuthority(),
      fc.stringMatching(/^[\x21-\x7e]{1,30}$/),
    );
    const origin = fc.option(
      fc.oneof(fc.constantFrom(api.url, `${api.url}/`, 'null', api.url.replace('127.0.0.1', 'localhost'), 'https://evil.example'), fc.webUrl(), fc.stringMatching(/^[\x21-\x7e]{0,30}$/)),
      { freq: 2 },
    );
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await fc.assert(
      fc.asyncProperty(host, origin, async (hostValue, originValue) => {
        const answer = await exchange(api.url, {
          method: 'POST',
          path: '/mcp',
          headers: { host: hostValue, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(originValue === null ? {} : { origin: originValue }) },
          body: init,
        });
        const context = `Host ${hostValue} Origin ${originValue} -> ${answer.status} ${answer.text.slice(0, 200)}`;
        const json = expectWellFormed('/mcp', answer, 'POST');
        const allowed = ours.includes(hostValue.toLowerCase()) && (originValue === null || originValue === api.url);
        if (allowed) expect(answer.status, context).toBe(200);
        else expect([answer.status, json.error], context).toEqual([403, 'forbidden']);
      }),
      runs(120),
    );
  });

  it('answers any Authorization value that is not a valid token 401 invalid_token with a Bearer challenge naming the metadata', async () => {
    const authorization = fc.oneof(
      fc.stringMatching(/^Bearer [A-Za-z0-9\-._~+/]{1,60}=*$/),
      fc.stringMatching(/^[\x20-\x7e]{0,60}$/),
      fc.constantFrom('Bearer', 'Bearer ', 'bearer x', 'Basic YTpi', 'Bearer a b', 'Bearer \u00e9', 'Bearer ' + 'a'.repeat(8000)),
    );
    await fc.assert(
      fc.asyncProperty(authorization, async (value) => {
        const answer = await exchange(api.url, {
          method: 'POST',
          path: '/mcp',
          headers: { authorization: value, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
        });
        const json = expectWellFormed('/mcp', answer, 'POST');
        expect([answer.status, json.error], `${JSON.stringify(value)} -> ${answer.text}`).toEqual([401, 'invalid_token']);
        expect(answer.headers.get('www-authenticate')).toContain(`resource_metadata="${api.url}/.well-known/oauth-protected-resource/mcp"`);
      }),
      runs(80),
    );
  });
});
