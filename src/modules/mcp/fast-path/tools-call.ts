// tools/call contact_service served here (index.ts): only exactly shaped calls whose arguments the
// tool's schema accepts; other tools, bad arguments and unknown _meta go to the SDK.
import { ContactToolInput, type ToolResult } from '../contact-tool.js';
import { isObject, isPlainModernMeta, isPlainRequest, LEGACY_VERSION, MODERN_VERSION, type Headers } from './shape.js';

const TOOL = 'contact_service';

export interface FastToolCall {
  era: 'legacy' | 'modern';
  id: string | number;
  /** Validated: the tool's input as its schema outputs it (the locale defaulted). */
  arguments: ContactToolInput;
}

/** The call to serve here, or undefined when the SDK must see the request. */
export function fastContactCall(body: unknown, headers: Headers): FastToolCall | undefined {
  if (!isPlainRequest(body, headers, 'tools/call')) return undefined;
  const params = body.params;
  if (!isObject(params) || params.name !== TOOL || !isObject(params.arguments)) return undefined;
  const version = headers['mcp-protocol-version'];
  const keys = Object.keys(params);
  if (version === LEGACY_VERSION) {
    if (keys.length !== 2) return undefined;
  } else {
    if (version !== MODERN_VERSION || headers['mcp-method'] !== 'tools/call' || headers['mcp-name'] !== TOOL || keys.length !== 3) return undefined;
    if (!isPlainModernMeta(params._meta)) return undefined;
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
