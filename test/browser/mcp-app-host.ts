// A minimal MCP Apps host for browser tests: a loopback page that frames an app and speaks the host side of SEP-1865.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one host page tells its view. */
export interface HostScenario {
  /** The McpUiHostContext returned by `ui/initialize`. */
  hostContext: Record<string, unknown>;
  /** The arguments of `ui/notifications/tool-input`, sent once the view says `initialized`. */
  toolInput: Record<string, unknown>;
  /** A `ui/notifications/tool-result` (CallToolResult) sent right after the tool input, if given. */
  toolResult?: Record<string, unknown>;
  /** The iframe's sandbox attribute. */
  sandbox?: string;
}

/**
 * The CSP the spec tells hosts to apply when a UI resource declares no `_meta.ui.csp` (apps.mdx, "Host Behavior").
 * The srcdoc iframe inherits the host page's policy container, so the app runs under exactly this policy.
 */
export const RESTRICTIVE_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; object-src 'none'; base-uri 'self'";

/** JSON that can sit inside an inline <script> (the app's own `</script>` included). */
const inScript = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/**
 * The host page. `window.hostCallTool(params)` (exposed by the test) answers each `tools/call` with
 * `{ result }` or `{ error }`; `window.viewMessages` records every JSON-RPC message the view sent;
 * `window.hostNotify` and `window.hostRequest` let the test speak to the view as the host.
 */
function hostPage(appHtml: string, scenario: HostScenario): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>MCP Apps test host</title>
<style>body{margin:0;padding:16px;background:#dde1e6;font:14px system-ui,sans-serif}
iframe{display:block;width:600px;height:120px;border:1px solid #9aa4ae;border-radius:10px;background:transparent}</style>
</head>
<body>
<iframe id="app" title="Portico contact form" sandbox="${scenario.sandbox ?? 'allow-scripts allow-forms'}"></iframe>
<script>
(() => {
  const SCENARIO = ${inScript(scenario)};
  const frame = document.getElementById('app');
  const post = (message) => frame.contentWindow.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const waiting = new Map();
  let nextId = 1000;
  window.viewMessages = [];
  window.hostNotify = (method, params) => post({ method, params });
  window.hostRequest = (method, params) => new Promise((resolve) => { const id = nextId++; waiting.set(id, resolve); post({ id, method, params }); });
  window.addEventListener('message', async (event) => {
    if (event.source !== frame.contentWindow) return;
    const m = event.data;
    if (!m || m.jsonrpc !== '2.0') return;
    window.viewMessages.push(m);
    if (m.method === undefined && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); return; }
    if (m.method === 'ui/initialize') {
      post({ id: m.id, result: { protocolVersion: '2026-01-26', hostInfo: { name: 'portico-test-host', version: '1.0.0' },
        hostCapabilities: { serverTools: {} }, hostContext: SCENARIO.hostContext } });
    } else if (m.method === 'ui/notifications/initialized') {
      post({ method: 'ui/notifications/tool-input', params: { arguments: SCENARIO.toolInput } });
      if (SCENARIO.toolResult) post({ method: 'ui/notifications/tool-result', params: SCENARIO.toolResult });
    } else if (m.method === 'ui/notifications/size-changed') {
      if (typeof m.params.height === 'number') frame.style.height = m.params.height + 'px';
    } else if (m.method === 'tools/call') {
      post({ id: m.id, ...(await window.hostCallTool(m.params)) });
    } else if (m.id !== undefined) {
      post({ id: m.id, error: { code: -32601, message: 'Method not found' } });
    }
  });
  frame.srcdoc = ${inScript(appHtml)};
})();
</script>
</body>
</html>`;
}

export interface AppHost {
  origin: string;
  /** Registers a page that frames `appHtml` for `scenario`; returns its URL. */
  page(appHtml: string, scenario: HostScenario): string;
  close(): Promise<void>;
}

export async function startAppHost(): Promise<AppHost> {
  const pages = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://host.invalid').pathname;
    if (path === '/favicon.ico') {
      response.writeHead(204).end(); // Chromium asks for one on its own; answering keeps the console free of 404s.
      return;
    }
    const html = pages.get(path);
    if (html === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': RESTRICTIVE_CSP, 'cache-control': 'no-store' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    page(appHtml, scenario) {
      const path = `/host-${pages.size + 1}`;
      pages.set(path, hostPage(appHtml, scenario));
      return `${origin}${path}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
