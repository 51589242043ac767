// The contact-form MCP App (D2): one self-contained HTML document that speaks the MCP Apps postMessage protocol.
//
// Checked against SEP-1865 "MCP Apps" (github.com/modelcontextprotocol/ext-apps, specification/2026-01-26/apps.mdx,
// Stable) and the SDK's App class (src/app.ts, src/spec.types.ts, src/message-transport.ts):
// - JSON-RPC 2.0 over window.parent.postMessage(message, '*'); only messages whose source is window.parent count.
// - Handshake: request `ui/initialize` {appInfo, appCapabilities, protocolVersion: '2026-01-26' (LATEST_PROTOCOL_VERSION)};
//   the result's hostContext carries locale (BCP 47), theme ('light'|'dark') and styles.variables; then the
//   notification `ui/notifications/initialized` (no params, as App.connect sends it).
// - Host -> view: `ui/notifications/tool-input` {arguments}, `ui/notifications/tool-result` (a CallToolResult),
//   `ui/notifications/host-context-changed` (partial, merged); requests `ping` and `ui/resource-teardown` get {}.
// - View -> host: `tools/call` {name, arguments} -> CallToolResult {content, structuredContent, isError} or a
//   JSON-RPC error; `ui/notifications/size-changed` {width, height} measured as App.setupSizeChangedNotifications.
// No network use (no URLs, fonts or images): it runs under the spec's restrictive default CSP (connect-src 'none').
// The form itself (fields, rules, words, markup, style) is the shared module ../../contact-form/form-core.ts;
// this file is its MCP App shell: the handshake, the host's context and the tool call.
import { FORM_SCRIPT, FORM_STYLE, formConfig } from '../../contact-form/form-core.js';
import { FORM_WORDS } from '../../contact-form/form-words.js';
import { escapeHtml, scriptJson } from '../../common/html.js';
import { CONTACT_TOOL } from '../contact-tool.js';

export const CONTACT_FORM_URI = 'ui://portico/contact-form';
export const CONTACT_FORM_MIME = 'text/html;profile=mcp-app';

/** The MCP Apps revision this view speaks (the SDK's LATEST_PROTOCOL_VERSION). */
export const MCP_APPS_PROTOCOL_VERSION = '2026-01-26';

const PAGE_STYLE = `html,body{margin:0}html[data-theme=dark]{color-scheme:dark}${FORM_STYLE}`;

/** The shell's program, after the form's. Plain ES2020, no `//` anywhere. */
const SHELL = String.raw`(function () {
'use strict';
var C = __CONFIG__;
var root = document.getElementById('portico-form');
var ctx = {}, hostCapabilities = null, nextId = 1, pending = new Map();

function post(message) { message.jsonrpc = '2.0'; window.parent.postMessage(message, '*'); }
function request(method, params) {
  var id = nextId++;
  return new Promise(function (resolve, reject) { pending.set(id, { resolve: resolve, reject: reject }); post({ id: id, method: method, params: params }); });
}
function notify(method, params) { post(params === undefined ? { method: method } : { method: method, params: params }); }

function succeeded(result) {
  return !!result && typeof result === 'object' && result.isError !== true && !(result.structuredContent && result.structuredContent.ok === false);
}

/*
 * What a tool result means for the person: the server's own text is English and for agents, so it is
 * never shown. The tool's structured error codes are read; a validation refusal (invalid_request) lists
 * the fields at fault, which are marked; anything else is a failure.
 */
function outcomeOf(result) {
  if (succeeded(result)) return { ok: true };
  var details = (result && result.structuredContent) || {};
  if (details.error === 'rate_limited') return { status: { key: 'rateLimited', minutes: Math.max(1, Math.ceil((Number(details.retryAfterSeconds) || 60) / 60)) } };
  if (details.error === 'delivery_failed') return { pending: true };
  if (details.error === 'store_unavailable' || details.error === 'server_busy') return { status: { key: 'unavailable' } };
  var fields = {}, named = details.error === 'invalid_request' && Array.isArray(details.fields) ? details.fields : [];
  ['name', 'email', 'message', 'privacy'].forEach(function (name) { if (named.indexOf(name) >= 0) fields[name] = { key: 'fieldRejected' }; });
  if (Object.keys(fields).length) return { errors: fields };
  return { status: { key: 'failure' } };
}

var form = porticoContactForm(root, C, {
  locale: function () { return ctx.locale; },
  send: function (args) {
    if (hostCapabilities && !hostCapabilities.serverTools) return { status: { key: 'noToolCalls' } };
    return request('tools/call', { name: C.tool, arguments: args }).then(outcomeOf, function (error) {
      return { status: { key: error && error.code === -32601 ? 'noToolCalls' : 'failure' } };
    });
  },
  privacyPolicy: function () { return C.privacyPolicyUrl; },
  /* The app's frame may not open windows: the host opens the link (ui/open-link) when it offers to. */
  openLink: function (url) {
    if (!hostCapabilities || !hostCapabilities.openLinks) return false;
    request('ui/open-link', { url: url }).catch(function () {});
    return true;
  },
  rendered: function (lang, words) { document.documentElement.lang = lang; document.title = words.title; }
});

function applyContext(patch) {
  if (!patch || typeof patch !== 'object') return;
  ctx = Object.assign({}, ctx, patch);
  var vars = ctx.styles && ctx.styles.variables, dark = ctx.theme === 'dark';
  document.documentElement.setAttribute('data-theme', dark ? 'dark' : 'light');
  if (vars && typeof vars === 'object') Object.keys(vars).forEach(function (key) {
    if (key.indexOf('--') === 0 && typeof vars[key] === 'string') root.style.setProperty(key, vars[key]);
  });
  form.setTheme(dark);
}

function onNotification(method, params) {
  if (method === 'ui/notifications/tool-input') form.prefill(params.arguments);
  else if (method === 'ui/notifications/tool-result') form.settle(outcomeOf(params));
  else if (method === 'ui/notifications/host-context-changed') applyContext(params);
}

window.addEventListener('message', function (event) {
  if (event.source !== window.parent) return;
  var m = event.data;
  if (!m || typeof m !== 'object' || m.jsonrpc !== '2.0') return;
  if (typeof m.method === 'string') {
    if (m.id === undefined || m.id === null) onNotification(m.method, m.params || {});
    else if (m.method === 'ping' || m.method === 'ui/resource-teardown') post({ id: m.id, result: {} });
    else post({ id: m.id, error: { code: -32601, message: 'Method not found: ' + m.method } });
  } else if (pending.has(m.id)) {
    var waiter = pending.get(m.id); pending.delete(m.id);
    if (m.error) waiter.reject(m.error); else waiter.resolve(m.result);
  }
});

function reportSize() {
  var scheduled = false, lastWidth = 0, lastHeight = 0;
  var measure = function () {
    if (scheduled) return; scheduled = true;
    requestAnimationFrame(function () {
      scheduled = false;
      var style = getComputedStyle(document.body);
      var height = Math.ceil(document.body.scrollHeight + (parseFloat(style.marginTop) || 0) + (parseFloat(style.marginBottom) || 0));
      var width = Math.ceil(window.innerWidth);
      if (width !== lastWidth || height !== lastHeight) { lastWidth = width; lastHeight = height; notify('ui/notifications/size-changed', { width: width, height: height }); }
    });
  };
  measure();
  var observer = new ResizeObserver(measure);
  observer.observe(document.documentElement); observer.observe(document.body);
}

request('ui/initialize', { appInfo: C.appInfo, appCapabilities: { availableDisplayModes: ['inline'] }, protocolVersion: C.protocolVersion })
  .then(function (result) {
    if (result && result.hostCapabilities && typeof result.hostCapabilities === 'object') hostCapabilities = result.hostCapabilities;
    applyContext(result && result.hostContext); notify('ui/notifications/initialized');
  }, function () {})
  .then(reportSize);
})();`;

/** The app's HTML: the text of `resources/read` for CONTACT_FORM_URI, built once per MCP handler. */
export function contactFormHtml(privacyPolicyUrl?: string): string {
  const config = {
    ...formConfig(),
    tool: CONTACT_TOOL,
    appInfo: { name: 'portico-contact-form', version: '1.0.0' },
    protocolVersion: MCP_APPS_PROTOCOL_VERSION,
    privacyPolicyUrl: privacyPolicyUrl ?? null,
  };
  return `<!doctype html>
<html lang="en" data-theme="light">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(FORM_WORDS.en.title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main id="portico-form"></main>
<script>${FORM_SCRIPT}
${SHELL.replace('__CONFIG__', () => scriptJson(config))}</script>
</body>
</html>
`;
}
