// Two MCP requests answered beside the SDK: the SDK builds a server, registers the tool and converts its
// schema on every request, which costs more than everything else such a request does but its e-mail
// (docs/performance.md, "Special cases"): tools/list from the SDK's own result, captured once per
// protocol revision, and a contact_service call whose arguments the tool's schema accepts. Only exactly
// shaped requests are answered here; everything else goes to the SDK, so that every other answer is the
// SDK's own. test/mcp/mcp.shortcuts.test.ts holds both answers byte for byte to the SDK's.
import { ContactToolInput, type ToolResult } from './contact-tool.js';
import { lastSseMessage } from './sse.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;
type Fetch = (request: Request, options: { parsedBody: unknown }) => Promise<Response>;
export type Era = 'legacy' | 'modern';

const LEGACY_VERSION = '2025-11-25';
const MODERN_VERSION = '2026-07-28';
const META_KEYS = new Set(['io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientCapabilities', 'io.modelcontextprotocol/clientInfo']);
const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

/** Which era's captured result answers this request, or undefined when the SDK must see it. */
export function toolsListEra(body: unknown, headers: Headers): Era | undefined {
  if (!isPlainRequest(body, headers, 'tools/list')) return undefined;
  const version = headers['mcp-protocol-version'];
  const params = body.params;
  if (version === LEGACY_VERSION && (params === undefined || (isObject(params) && Object.keys(params).length === 0))) return 'legacy';
  if (version !== MODERN_VERSION || headers['mcp-method'] !== 'tools/list' || !isObject(params)) return undefined;
  return Object.keys(params).length === 1 && isPlainModernMeta(params._meta) ? 'modern' : undefined;
}

/**
 * Asks the SDK once per era, then answers from the captured result with the caller's id. A capture
 * that failed is tried again by the next request.
 */
export function toolsListCache(fetchFromSdk: Fetch, endpoint: string): (era: Era, id: string | number) => Promise<string> {
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
  return async (era, id) => {
    let result = results.get(era);
    if (!result) {
      result = capture(era);
      results.set(era, result);
      result.catch(() => results.delete(era));
    }
    // The SDK's key order: result, jsonrpc, id.
    return `{"result":${await result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  };
}

export interface ContactCall {
  era: Era;
  id: string | number;
  /** The tool's input as its schema outputs it (the locale defaulted). */
  arguments: ContactToolInput;
}

/** The contact_service call to answer here, or undefined when the SDK must see it (another tool, bad arguments, other `_meta`). */
export function contactCall(body: unknown, headers: Headers): ContactCall | undefined {
  if (!isPlainRequest(body, headers, 'tools/call')) return undefined;
  const params = body.params;
  if (!isObject(params) || params.name !== 'contact_service' || !isObject(params.arguments)) return undefined;
  const version = headers['mcp-protocol-version'];
  const keys = Object.keys(params).length;
  if (version === LEGACY_VERSION) {
    if (keys !== 2) return undefined;
  } else if (version !== MODERN_VERSION || headers['mcp-method'] !== 'tools/call' || headers['mcp-name'] !== 'contact_service' || keys !== 3 || !isPlainModernMeta(params._meta)) {
    return undefined;
  }
  // Arguments the tool refuses are answered on the SDK's path, through the tool's own refusal.
  const valid = ContactToolInput['~standard'].validate(params.arguments);
  if (valid instanceof Promise || valid.issues) return undefined;
  return { era: version === LEGACY_VERSION ? 'legacy' : 'modern', id: body.id, arguments: valid.value };
}

/**
 * The JSON-RPC response around a tool result as the SDK writes it: the keys in its order (result,
 * jsonrpc, id); a 2026-07-28 result also says it is complete and names the server.
 */
export function contactCallResponse(call: ContactCall, result: ToolResult, serverInfo: object): string {
  const complete = call.era === 'modern' ? { ...result, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo } } : result;
  return JSON.stringify({ result: complete, jsonrpc: '2.0', id: call.id });
}

/** A JSON-RPC 2.0 request for `method` with a usable id, from a client that accepts both answer forms. */
function isPlainRequest(body: unknown, headers: Headers, method: string): body is { id: string | number; params?: unknown } {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== method) return false;
  if (typeof body.id !== 'string' && typeof body.id !== 'number') return false;
  const accept = String(headers.accept ?? '');
  return accept.includes('application/json') && accept.includes('text/event-stream');
}

/** A 2026-07-28 request's `_meta`: the protocol version and client capabilities, and no other key but client info. */
function isPlainModernMeta(meta: unknown): boolean {
  if (!isObject(meta) || !Object.keys(meta).every((key) => META_KEYS.has(key))) return false;
  return meta['io.modelcontextprotocol/protocolVersion'] === MODERN_VERSION && isObject(meta['io.modelcontextprotocol/clientCapabilities']);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
