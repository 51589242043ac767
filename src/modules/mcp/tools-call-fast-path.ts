// tools/call contact_service without building an SDK server per request: the SDK constructs a server,
// registers the tool and converts its input schema to JSON Schema on every call (66% of the profile
// beside the e-mail). Only exactly shaped calls whose arguments validate take this path; anything
// else (other tools, bad arguments, unknown _meta) goes to the SDK, so its answers stay the SDK's.
// test/mcp/mcp.fast-path.test.ts holds the two answers byte for byte equal.
import { ContactToolInput, type ToolResult } from './contact-tool.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const TOOL = 'contact_service';
const LEGACY_VERSION = '2025-11-25';
const MODERN_VERSION = '2026-07-28';
const META_KEYS = new Set(['io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientCapabilities', 'io.modelcontextprotocol/clientInfo']);

export interface FastToolCall {
  era: 'legacy' | 'modern';
  id: string | number;
  /** Validated: the tool's input as its schema outputs it (the locale defaulted). */
  arguments: ContactToolInput;
}

/** The call to serve here, or undefined when the SDK must see the request. */
export function fastContactCall(body: unknown, headers: Headers): FastToolCall | undefined {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  if (typeof body.id !== 'string' && typeof body.id !== 'number') return undefined;
  const accept = String(headers.accept ?? '');
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  const params = body.params;
  if (!isObject(params) || params.name !== TOOL || !isObject(params.arguments)) return undefined;
  const version = headers['mcp-protocol-version'];
  const keys = Object.keys(params);
  if (version === LEGACY_VERSION) {
    if (keys.length !== 2) return undefined;
  } else {
    if (version !== MODERN_VERSION || headers['mcp-method'] !== 'tools/call' || headers['mcp-name'] !== TOOL || keys.length !== 3) return undefined;
    const meta = params._meta;
    if (!isObject(meta) || !Object.keys(meta).every((key) => META_KEYS.has(key))) return undefined;
    if (meta['io.modelcontextprotocol/protocolVersion'] !== MODERN_VERSION || !isObject(meta['io.modelcontextprotocol/clientCapabilities'])) return undefined;
  }
  // Arguments the tool refuses are answered by the SDK's own validation, word for word.
  const valid = ContactToolInput['~standard'].validate(params.arguments);
  if (valid instanceof Promise || valid.issues) return undefined;
  return { era: version === LEGACY_VERSION ? 'legacy' : 'modern', id: body.id, arguments: valid.value };
}

/**
 * The JSON-RPC response around a tool result, as the SDK writes it: key order result, jsonrpc, id;
 * a 2026-07-28 result also says it is complete and names the server. A ToolResult always has its
 * `content` and never those two members, so they can follow its own as the SDK's spread puts them.
 */
export function toolCallResponses(serverInfo: object): (call: FastToolCall, result: ToolResult) => string {
  // The members JSON.stringify would add after the result's own, serialized once.
  const modernTail = `,${JSON.stringify({ resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo } }).slice(1, -1)}}`;
  return (call, result) => {
    const json = JSON.stringify(result);
    return `{"result":${call.era === 'modern' ? json.slice(0, -1) + modernTail : json},"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`;
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
