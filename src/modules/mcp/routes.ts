// POST /mcp: DNS-rebinding defence (D3), Bearer with mcp:invoke optional, then the SDK's handler; JSON out (D1).
import * as z from 'zod';
import { AppError } from '../../errors.js';
import { publicOrigin } from '../common/public-origin.js';
import { route, type Reply, type RouteSpec } from '../common/route-spec.js';
import type { ContactDeps } from '../contact/submit.js';
import { headerValue } from '../common/header-value.js';
import { readIdempotencyKey } from '../common/idempotency-key.js';
import { callContactTool, type Caller } from './contact-tool.js';
import { createPorticoMcpHandler, SERVER_INFO } from './mcp-handler.js';
import { remapInvalidParams } from './sdk-errors.js';
import { lastSseMessage } from './sse.js';
import { contactCall, contactCallResponse, toolsListCache, toolsListEra } from './shortcuts.js';

export const MCP_SCOPE = 'mcp:invoke';

export interface McpRouteSettings {
  publicUrl: string;
  allowedOrigins: readonly string[] | '*';
  /** PRIVACY_POLICY_URL, linked from the app's consent checkbox. */
  privacyPolicyUrl?: string | undefined;
}

const JsonRpcMessage = z.unknown().meta({ id: 'JsonRpcRequest', description: 'A JSON-RPC 2.0 request or notification: jsonrpc "2.0", method, optional id and params.' });
const JsonRpcResponse = z.looseObject({ jsonrpc: z.literal('2.0') }).meta({ id: 'JsonRpcResponse' });
// JSON-RPC 2.0 section 5.1: the error object; id is null when the request's id could not be read.
const JsonRpcError = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }),
  })
  .meta({ id: 'JsonRpcError', description: 'A JSON-RPC 2.0 error response.' });

/**
 * POST /mcp: refuses a Host or Origin not allowed (D3) and batches, answers tools/list and contact_service
 * calls beside the SDK (shortcuts.ts) and the rest through it, always as JSON (D1).
 */
export function mcpRoutes(deps: ContactDeps, settings: McpRouteSettings): RouteSpec[] {
  const handler = createPorticoMcpHandler(deps, settings.privacyPolicyUrl);
  const endpoint = `${settings.publicUrl}/mcp`;
  const toolsList = toolsListCache(handler.fetch, endpoint);
  const { hosts } = publicOrigin(settings.publicUrl);

  const throughSdk = async (body: unknown, headers: RequestHeaders, caller: Caller): Promise<Reply> => {
    const request = new Request(endpoint, { method: 'POST', headers: webHeaders(headers) });
    const response = await handler.fetch(request, { parsedBody: body }, caller);
    // D1: notifications answer 204 with no body (the SDK says 202, which its clients also accept).
    if (response.status === 202) return { status: 204 };
    const text = await response.text();
    const type = response.headers.get('content-type') ?? 'application/json';
    // D1: requests answer application/json; the SDK's 2025-era leg frames its one answer as SSE.
    if (type.startsWith('text/event-stream')) return { status: response.status, body: remapInvalidParams(lastSseMessage(text)), contentType: 'application/json' };
    return { status: response.status, body: remapInvalidParams(text), contentType: type };
  };

  return [
    route({
      method: 'POST',
      path: '/mcp',
      operationId: 'callMcp',
      summary: 'MCP over Streamable HTTP: the contact_service tool and the contact-form app',
      description: 'Stateless: 2026-07-28 requests and the 2025-era handshake (2025-11-25, 2025-06-18, 2025-03-26) on one endpoint.',
      tags: ['mcp'],
      body: JsonRpcMessage,
      bodyLimitBytes: 256 * 1024,
      responses: {
        200: { description: 'The JSON-RPC response.', schema: JsonRpcResponse },
        204: { description: 'A notification was accepted.' },
        400: {
          description:
            'A message the transport refuses, as a JSON-RPC error: a body that is not JSON (-32700), not a JSON-RPC message or a batch (-32600), MCP headers that disagree with the body (-32020), or an unsupported protocol version.',
          schema: JsonRpcError,
        },
        404: {
          description:
            'A 2026-07-28 request for a method this server does not offer (prompts, completion, logging, resource subscriptions, subscriptions/listen), as JSON-RPC error -32601; the 2025 era answers it with 200.',
          schema: JsonRpcError,
        },
        406: { description: 'The Accept header allows neither application/json nor text/event-stream (MCP Streamable HTTP), as a JSON-RPC error.', schema: JsonRpcError },
      },
      errors: ['invalid_token', 'insufficient_scope', 'forbidden', 'unsupported_media_type', 'payload_too_large', 'rate_limited', 'store_unavailable'],
      limit: 'mcp',
      cors: 'mcp',
      auth: { kind: 'optional-bearer', scope: MCP_SCOPE, insufficientScopeStatus: 403 },
      jsonRpc: true,
      async handler({ body, headers, ip, principal }) {
        // D3: a page on another site must not reach a local or internal server through DNS rebinding.
        const host = String(headers.host ?? '').toLowerCase();
        if (!hosts.has(host)) throw new AppError('forbidden', `Host ${host || '(none)'} is not this server`);
        const origin = headers.origin;
        if (typeof origin === 'string' && settings.allowedOrigins !== '*' && !settings.allowedOrigins.includes(origin)) {
          throw new AppError('forbidden', `Origin ${origin} may not call this server`);
        }
        // D1: JSON-RPC batches are not part of the protocol since 2025-06-18.
        if (Array.isArray(body)) return jsonRpcError(400, -32600, 'JSON-RPC batches are not supported');
        // SEP-2575's subscriptions/listen (2026-07-28) opens a stream of list changes and resource updates.
        // Nothing this server lists changes while it runs (server/discover says listChanged: false, and it
        // offers no resource subscriptions): the method is not offered, and answered as the SDK answers every
        // other such method, where the SDK would hold open a stream that never says anything.
        const listen = subscriptionsListen(body);
        if (listen) return { status: 404, body: JSON.stringify({ jsonrpc: '2.0', id: listen.id, error: { code: -32601, message: 'Method not found' } }), contentType: 'application/json' };
        const era = toolsListEra(body, headers);
        if (era) return { status: 200, body: await toolsList(era, (body as { id: string | number }).id), contentType: 'application/json' };
        const caller: Caller = {
          remoteIp: ip,
          clientId: principal?.clientId ?? null,
          idempotencyKey: readIdempotencyKey(headers['idempotency-key']),
          userAgent: headerValue(headers['user-agent']),
          referrer: headerValue(headers.referer),
        };
        const call = contactCall(body, headers);
        if (call) return { status: 200, body: contactCallResponse(call, await callContactTool(deps, { input: call.arguments }, caller), SERVER_INFO), contentType: 'application/json' };
        return throughSdk(body, headers, caller);
      },
    }),
  ];
}

const jsonRpcError = (status: number, code: number, message: string) => ({
  status,
  body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }),
  contentType: 'application/json',
});

/** A subscriptions/listen request, with the id to answer it under. */
function subscriptionsListen(body: unknown): { id: string | number } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { method, id } = body as { method?: unknown; id?: unknown };
  return method === 'subscriptions/listen' && (typeof id === 'string' || typeof id === 'number') ? { id } : undefined;
}

type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

function webHeaders(headers: RequestHeaders): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'content-length' || name === 'host' || name === 'connection') continue;
    result.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return result;
}
