// The MCP server (official SDK 2.x): one tool, served statelessly for 2026-07-28 and 2025-era clients.
import type { ContactDeps } from '../contact/submit.js';
import { CONTACT_FORM_MIME, CONTACT_FORM_URI, contactFormHtml } from './ui/contact-form-html.js';
import { callContactTool, CONTACT_TOOL, CONTACT_TOOL_DESCRIPTION, ContactToolArguments, ContactToolOutput, type Caller } from './contact-tool.js';

export const SERVER_INFO = { name: 'portico', title: 'Portico', version: '1.0.0' };

// 2026-07-28 caching hints (server/utilities/caching): the tool, the app and what the server offers are
// the same for every caller and change only with a new release, so any client or shared cache may keep them
// for an hour, as long as the discovery documents' Cache-Control says.
const PUBLIC_FOR_AN_HOUR = { ttlMs: 3_600_000, cacheScope: 'public' } as const;
const CACHE_HINTS = {
  'server/discover': PUBLIC_FOR_AN_HOUR,
  'tools/list': PUBLIC_FOR_AN_HOUR,
  'resources/list': PUBLIC_FOR_AN_HOUR,
  'resources/templates/list': PUBLIC_FOR_AN_HOUR,
  'resources/read': PUBLIC_FOR_AN_HOUR,
};

// D2: the app is self-contained, so it asks the host for no network origins at all.
const UI_META = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } };

const UNKNOWN_CALLER: Caller = { remoteIp: 'unknown', clientId: null, idempotencyKey: undefined };

/**
 * The SDK's handler, given who is calling with each request. The caller rides on the Request object
 * (the SDK hands it to the server factory) rather than in an AsyncLocalStorage: once one is used,
 * Node 20 runs a promise hook for every promise in the process, on every route. The SDK loads with the
 * first request that needs it, not at start: it adds some 100 ms to a start, where a node that is
 * restarted should answer at once.
 */
export function createPorticoMcpHandler(deps: ContactDeps, privacyPolicyUrl?: string) {
  const callers = new WeakMap<Request, Caller>();
  let loading: Promise<SdkHandler> | undefined;
  const sdk = () =>
    (loading ??= sdkHandler(deps, callers, privacyPolicyUrl).catch((error: unknown) => {
      // A failed load is tried again by the next request.
      loading = undefined;
      throw error;
    }));
  return {
    async fetch(request: Request, options: { parsedBody?: unknown } = {}, caller: Caller = UNKNOWN_CALLER): Promise<Response> {
      callers.set(request, caller);
      return (await sdk()).fetch(request, { parsedBody: options.parsedBody });
    },
  };
}

type SdkHandler = { fetch(request: Request, options: { parsedBody?: unknown }): Promise<Response> };

async function sdkHandler(deps: ContactDeps, callers: WeakMap<Request, Caller>, privacyPolicyUrl: string | undefined): Promise<SdkHandler> {
  const { createMcpHandler, McpServer } = await import('@modelcontextprotocol/server');
  const html = contactFormHtml(privacyPolicyUrl);
  const factory = (context: { requestInfo?: Request }) => {
    const caller = (context.requestInfo && callers.get(context.requestInfo)) ?? UNKNOWN_CALLER;
    const server = new McpServer(SERVER_INFO, {
      // The tool and the app never change while the process runs: no list_changed promises.
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
      instructions: 'Portico lets you send an inquiry to the team of a community and property management product with the contact_service tool.',
      cacheHints: CACHE_HINTS,
    });
    server.registerTool(
      CONTACT_TOOL,
      {
        title: 'Contact the team',
        description: CONTACT_TOOL_DESCRIPTION,
        inputSchema: ContactToolArguments,
        outputSchema: ContactToolOutput,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
        // MCP Apps: hosts that render apps show the contact form; `ui/resourceUri` is the pre-2026 key.
        _meta: { ui: { resourceUri: CONTACT_FORM_URI }, 'ui/resourceUri': CONTACT_FORM_URI },
      },
      async (args) => callContactTool(deps, args, caller),
    );
    server.registerResource(
      'contact-form',
      CONTACT_FORM_URI,
      { title: 'Contact form', description: 'A form to write to the team, in es, en, ca, ru, eu or gl.', mimeType: CONTACT_FORM_MIME, _meta: UI_META },
      async () => ({ contents: [{ uri: CONTACT_FORM_URI, mimeType: CONTACT_FORM_MIME, text: html, _meta: UI_META }] }),
    );
    return server;
  };
  // 'auto' answers one JSON body (our tool sends nothing before its result); the route turns any SSE framing into JSON.
  return createMcpHandler(factory, { legacy: 'stateless', responseMode: 'auto' });
}
