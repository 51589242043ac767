// The host side of an MCP App, made from the official SDK as its basic-host example is: an MCP client
// (@modelcontextprotocol/client) reads the tool's UI resource from Portico's /mcp, an AppBridge
// (@modelcontextprotocol/ext-apps/app-bridge) talks to the view through the example's two-iframe
// sandbox (an outer proxy on a second origin, under the CSP built from `_meta.ui.csp` as an HTTP
// header), and the view's tool calls go back to /mcp through the client. Bundled by esbuild for the
// page; the test drives it through `window.openApp` and `window.bridge`.
import { AppBridge, getToolUiResourceUri, PostMessageTransport, RESOURCE_MIME_TYPE, type McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { OpenAppOptions } from './options.js';

declare global {
  interface Window {
    openApp(options: OpenAppOptions): Promise<void>;
    bridge: AppBridge;
    hostCallTool(params: unknown): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }>;
    /** The links the app asked the host to open (ui/open-link). */
    openedLinks: string[];
  }
}

const HOST_INFO = { name: 'Portico test host (ext-apps AppBridge)', version: '1.0.0' };

window.openApp = async (options) => {
  const client = new Client(HOST_INFO);
  await client.connect(new StreamableHTTPClientTransport(new URL(options.mcpUrl)));
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === 'contact_service');
  if (!tool) throw new Error('the server lists no contact_service tool');
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error('contact_service names no UI resource');
  const { contents } = await client.readResource({ uri });
  const content = contents[0] as { mimeType?: string; text?: string; _meta?: { ui?: { csp?: Record<string, string[]> } } } | undefined;
  if (!content || content.mimeType !== RESOURCE_MIME_TYPE || typeof content.text !== 'string') throw new Error(`unexpected UI resource: ${JSON.stringify(content)}`);
  const csp = content._meta?.ui?.csp;

  const iframe = document.createElement('iframe');
  iframe.id = 'app';
  iframe.title = 'Contact form';
  iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
  const sandbox = new URL(options.sandboxUrl);
  if (csp) sandbox.searchParams.set('csp', JSON.stringify(csp));
  const proxyReady = new Promise<void>((resolve) => {
    const listener = (event: MessageEvent) => {
      if (event.source === iframe.contentWindow && event.data?.method === 'ui/notifications/sandbox-proxy-ready') {
        window.removeEventListener('message', listener);
        resolve();
      }
    };
    window.addEventListener('message', listener);
  });
  iframe.src = sandbox.href;
  document.getElementById('apps')!.appendChild(iframe);
  await proxyReady;

  // Without serverTools the bridge has no client to forward tool calls to: the view's tools/call is refused.
  const bridge = new AppBridge(options.toolCalls ? client : null, HOST_INFO, options.toolCalls ? { serverTools: {}, openLinks: {} } : { openLinks: {} }, {
    hostContext: options.hostContext as McpUiHostContext,
  });
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  if (options.answeredByTest) {
    bridge.oncalltool = async (params) => {
      const answer = await window.hostCallTool(params);
      if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
      return answer.result as Awaited<ReturnType<NonNullable<AppBridge['oncalltool']>>>;
    };
  }
  window.openedLinks = [];
  bridge.onopenlink = async ({ url }) => {
    window.openedLinks.push(url);
    return {};
  };
  window.bridge = bridge;
  await bridge.sendSandboxResourceReady({ html: content.text, ...(csp ? { csp } : {}) });
  await initialized;
  await bridge.sendToolInput({ arguments: options.toolInput });
  if (options.toolResult) await bridge.sendToolResult(options.toolResult as Parameters<AppBridge['sendToolResult']>[0]);
};
