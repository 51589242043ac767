// An MCP Apps host for browser tests, made as the official SDK's basic-host example is made: the host
// page (./ext-apps-host/page.ts, bundled here with esbuild) on one loopback origin, and the sandbox
// proxy on a second one, served with the Content-Security-Policy built from the resource's
// `_meta.ui.csp` as an HTTP header; the view runs in an inner iframe the proxy writes, under that policy.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const PAGE_ENTRY = fileURLToPath(new URL('./ext-apps-host/page.ts', import.meta.url));

let bundle: Promise<string> | undefined;
/** The host page's script: the SDK and its client, for the browser. */
function pageScript(): Promise<string> {
  bundle ??= build({ entryPoints: [PAGE_ENTRY], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent' }).then((result) => result.outputFiles[0]!.text);
  return bundle;
}

interface ResourceCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/** The basic-host example's policy for a resource's `_meta.ui.csp` (its src/csp.ts), domains checked the same way. */
export function cspHeader(csp: ResourceCsp | undefined): string {
  const domains = (list?: string[]) => (list ?? []).filter((d) => typeof d === 'string' && !/[;\r\n'" ]/.test(d)).join(' ');
  const resources = domains(csp?.resourceDomains);
  const frames = domains(csp?.frameDomains);
  const base = domains(csp?.baseUriDomains);
  return [
    "default-src 'self' 'unsafe-inline'",
    `script-src 'self' 'unsafe-inline' 'unsafe-eval' blob: data: ${resources}`.trim(),
    `style-src 'self' 'unsafe-inline' blob: data: ${resources}`.trim(),
    `img-src 'self' data: blob: ${resources}`.trim(),
    `font-src 'self' data: blob: ${resources}`.trim(),
    `media-src 'self' data: blob: ${resources}`.trim(),
    `connect-src 'self' ${domains(csp?.connectDomains)}`.trim(),
    `worker-src 'self' blob: ${resources}`.trim(),
    frames ? `frame-src ${frames}` : "frame-src 'none'",
    "object-src 'none'",
    base ? `base-uri ${base}` : "base-uri 'none'",
  ].join('; ');
}

// The sandbox proxy, as the example's src/sandbox.ts: it accepts messages only from the page that framed
// it, writes the view's HTML into an inner iframe on its own origin, and relays everything else both ways.
const SANDBOX_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sandbox</title>
<style>html,body{margin:0;height:100%;overflow:hidden}iframe{width:100%;height:100%;border:0;display:block}</style></head>
<body><script>
(() => {
  if (window.self === window.top || !document.referrer) throw new Error('only to be framed by the host');
  const HOST = new URL(document.referrer).origin;
  const OWN = window.location.origin;
  const inner = document.createElement('iframe');
  inner.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
  inner.title = 'App';
  document.body.appendChild(inner);
  window.addEventListener('message', (event) => {
    if (event.source === window.parent) {
      if (event.origin !== HOST) return;
      const m = event.data;
      if (m && m.method === 'ui/notifications/sandbox-resource-ready') {
        if (typeof m.params.sandbox === 'string') inner.setAttribute('sandbox', m.params.sandbox);
        const doc = inner.contentDocument;
        doc.open(); doc.write(m.params.html); doc.close();
      } else if (inner.contentWindow) inner.contentWindow.postMessage(m, '*');
    } else if (event.source === inner.contentWindow) {
      if (event.origin !== OWN) return;
      window.parent.postMessage(event.data, HOST);
    }
  });
  window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, HOST);
})();
</script></body></html>`;

const HOST_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>MCP Apps test host</title>
<style>body{margin:0;padding:16px;background:#f3f4f6;font:14px system-ui,sans-serif}
iframe{display:block;width:600px;height:200px;border:1px solid #d1d5db;border-radius:10px;background:#fff}</style></head>
<body><div id="apps"></div><script type="module" src="/page.js"></script></body></html>`;

export interface ExtAppsHost {
  /** The host page: open it, then call `window.openApp(options)`. */
  url: string;
  /** The sandbox proxy page, on its own origin. */
  sandboxUrl: string;
  /** Every Content-Security-Policy the sandbox was served with. */
  policies: string[];
  close(): Promise<void>;
}

export async function startExtAppsHost(): Promise<ExtAppsHost> {
  const script = await pageScript();
  const policies: string[] = [];
  const host = await listen((request, response) => {
    const path = new URL(request.url ?? '/', 'http://host.invalid').pathname;
    if (path === '/') return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(HOST_HTML);
    if (path === '/page.js') return void response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    response.writeHead(path === '/favicon.ico' ? 204 : 404).end();
  });
  const sandbox = await listen((request, response) => {
    const url = new URL(request.url ?? '/', 'http://sandbox.invalid');
    if (url.pathname !== '/sandbox.html') return void response.writeHead(url.pathname === '/favicon.ico' ? 204 : 404).end();
    let csp: ResourceCsp | undefined;
    try {
      csp = url.searchParams.has('csp') ? (JSON.parse(url.searchParams.get('csp')!) as ResourceCsp) : undefined;
    } catch {
      csp = undefined;
    }
    const policy = cspHeader(csp);
    policies.push(policy);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': policy, 'cache-control': 'no-store' }).end(SANDBOX_HTML);
  });
  return {
    url: `${host.origin}/`,
    sandboxUrl: `${sandbox.origin}/sandbox.html`,
    policies,
    close: async () => {
      await host.close();
      await sandbox.close();
    },
  };
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
