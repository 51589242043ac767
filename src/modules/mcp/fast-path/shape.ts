// What both fast paths accept: the two protocol revisions' exact request shapes, and nothing more.
// Anything else goes to the SDK, so that every answer that is not a fast path's is the SDK's own.

export type Headers = Readonly<Record<string, string | string[] | undefined>>;

export const LEGACY_VERSION = '2025-11-25';
export const MODERN_VERSION = '2026-07-28';
const META_KEYS = new Set(['io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientCapabilities', 'io.modelcontextprotocol/clientInfo']);

/** A JSON-RPC 2.0 request for `method` with a usable id, from a client that accepts both answer forms. */
export function isPlainRequest(body: unknown, headers: Headers, method: string): body is { id: string | number; params?: unknown } {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== method) return false;
  if (typeof body.id !== 'string' && typeof body.id !== 'number') return false;
  const accept = String(headers.accept ?? '');
  return accept.includes('application/json') && accept.includes('text/event-stream');
}

/** A 2026-07-28 request's `_meta`: the protocol version and client capabilities, and no other key but client info. */
export function isPlainModernMeta(meta: unknown): boolean {
  if (!isObject(meta) || !Object.keys(meta).every((key) => META_KEYS.has(key))) return false;
  return meta['io.modelcontextprotocol/protocolVersion'] === MODERN_VERSION && isObject(meta['io.modelcontextprotocol/clientCapabilities']);
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
