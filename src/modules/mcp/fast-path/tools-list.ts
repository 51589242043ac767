// tools/list served here (index.ts): the SDK's own result, captured once per protocol revision, with
// the caller's id; only exactly shaped requests, everything else goes to the SDK.
import { lastSseMessage } from '../sse.js';
import { isObject, isPlainModernMeta, isPlainRequest, LEGACY_VERSION, MODERN_VERSION, type Headers } from './shape.js';

type Fetch = (request: Request, options: { parsedBody: unknown }) => Promise<Response>;

const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

export type Era = 'legacy' | 'modern';

/** Which era's cached result answers this request, or undefined when the SDK must see it. */
export function fastToolsListEra(body: unknown, headers: Headers): Era | undefined {
  if (!isPlainRequest(body, headers, 'tools/list')) return undefined;
  const version = headers['mcp-protocol-version'];
  const params = body.params;
  if (version === LEGACY_VERSION && (params === undefined || (isObject(params) && Object.keys(params).length === 0))) return 'legacy';
  if (version !== MODERN_VERSION || headers['mcp-method'] !== 'tools/list' || !isObject(params)) return undefined;
  if (Object.keys(params).length !== 1 || !isPlainModernMeta(params._meta)) return undefined;
  return 'modern';
}

/**
 * Asks the SDK once per era, then answers from the captured result with the caller's id: at once, as a
 * string, once the result is there (no promise, no microtask turn), as a promise while it is captured.
 * A capture that failed is tried again by the next request.
 */
export function toolsListCache(fetchFromSdk: Fetch, endpoint: string): (era: Era, id: string | number) => string | Promise<string> {
  // An era's result once captured; the capture's promise while it runs.
  const results = new Map<Era, string | Promise<string>>();
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
  // The SDK's key order: result, jsonrpc, id.
  const answer = (result: string, id: string | number) => `{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  return (era, id) => {
    let result = results.get(era);
    if (typeof result === 'string') return answer(result, id);
    if (!result) {
      result = capture(era).then(
        (captured) => (results.set(era, captured), captured),
        (error: unknown) => {
          results.delete(era);
          throw error;
        },
      );
      results.set(era, result);
    }
    return result.then((captured) => answer(captured, id));
  };
}
