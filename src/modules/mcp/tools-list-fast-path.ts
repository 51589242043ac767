// tools/list answered from the SDK's own result, captured once: the SDK builds a server per request,
// which held tools/list at 0.04 of a bare handler (bench). The bytes stay the SDK's; only exactly
// shaped requests take this path, everything else goes to the SDK (test/mcp/mcp.fast-path.test.ts).

import { lastSseMessage } from './sse.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;
type Fetch = (request: Request, options: { parsedBody: unknown }) => Promise<Response>;

const LEGACY_VERSION = '2025-11-25';
const MODERN_VERSION = '2026-07-28';
const META_KEYS = new Set(['io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientCapabilities', 'io.modelcontextprotocol/clientInfo']);
const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

export type Era = 'legacy' | 'modern';

/** Which era's cached result answers this request, or undefined when the SDK must see it. */
export function fastToolsListEra(body: unknown, headers: Headers): Era | undefined {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/list') return undefined;
  if (typeof body.id !== 'string' && typeof body.id !== 'number') return undefined;
  const accept = String(headers.accept ?? '');
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  const version = headers['mcp-protocol-version'];
  const params = body.params;
  if (version === LEGACY_VERSION && (params === undefined || (isObject(params) && Object.keys(params).length === 0))) return 'legacy';
  if (version !== MODERN_VERSION || headers['mcp-method'] !== 'tools/list' || !isObject(params)) return undefined;
  const meta = params._meta;
  if (Object.keys(params).length !== 1 || !isObject(meta) || !Object.keys(meta).every((key) => META_KEYS.has(key))) return undefined;
  if (meta['io.modelcontextprotocol/protocolVersion'] !== MODERN_VERSION || !isObject(meta['io.modelcontextprotocol/clientCapabilities'])) return undefined;
  return 'modern';
}

/** Asks the SDK once per era, then answers from the captured result with the caller's id. */
export function toolsListCache(fetchFromSdk: Fetch, endpoint: string) {
  const results = new Map<Era, Promise<string>>();
  const capture = async (era: Era) => {
    const body =
      era === 'legacy'
        ? { jsonrpc: '2.0', id: 0, method: 'tools/list' }
        : { jsonrpc: '2.0', id: 0, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} } } };
    const headers = era === 'legacy' ? { ...ACCEPT, 'mcp-protocol-version': LEGACY_VERSION } : { ...ACCEPT, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' };
    const response = await fetchFromSdk(new Request(endpoint, { method: 'POST', headers }), { parsedBody: body });
    const text = await response.text();
    const json = JSON.parse(text.startsWith('{') ? text : lastSseMessage(text)) as { result: unknown };
    return JSON.stringify(json.result);
  };
  return async (era: Era, id: string | number): Promise<string> => {
    let result = results.get(era);
    if (!result) results.set(era, (result = capture(era)));
    // The SDK's key order: result, jsonrpc, id.
    return `{"result":${await result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
