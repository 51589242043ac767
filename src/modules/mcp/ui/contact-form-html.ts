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
import * as z from 'zod';
import { ContactRequest, LOCALES } from '../../contact/schema.js';
import { CONTACT_TOOL } from '../contact-tool.js';
import { FORM_WORDS, LANGUAGE_NAMES } from './contact-form-i18n.js';

export const CONTACT_FORM_URI = 'ui://portico/contact-form';
export const CONTACT_FORM_MIME = 'text/html;profile=mcp-app';

/** The MCP Apps revision this view speaks (the SDK's LATEST_PROTOCOL_VERSION). */
export const MCP_APPS_PROTOCOL_VERSION = '2026-01-26';

/** The limits and e-mail pattern come from the ContactRequest schema itself, so the page cannot drift from it. */
interface Limits {
  maxLength: number;
  pattern?: string;
}
function schemaOf(field: 'name' | 'email' | 'message'): Limits {
  const schema = z.toJSONSchema(ContactRequest.shape[field], { io: 'input' }) as { maxLength?: unknown; pattern?: unknown };
  if (typeof schema.maxLength !== 'number') throw new Error(`ContactRequest.${field} has no maxLength`);
  return { maxLength: schema.maxLength, ...(typeof schema.pattern === 'string' ? { pattern: schema.pattern } : {}) };
}

/** JSON that is safe inside a <script> element (no `</script>`, no `<!--`, no line separators). */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `
:root{color-scheme:light;--color-background-primary:#fff;--color-background-secondary:#f4f6f8;--color-text-primary:#1b1f24;
--color-text-secondary:#4a5560;--color-border-primary:#8a949e;--color-text-danger:#b3261e;--color-background-danger:#fdecea;
--color-text-success:#1e6b34;--color-background-success:#e7f5ea;--color-ring-primary:#f5a623;--accent:#0b5cad;--accent-text:#fff;
--font-sans:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;--border-radius-md:8px}
:root[data-theme=dark]{color-scheme:dark;--color-background-primary:#17191c;--color-background-secondary:#22262b;
--color-text-primary:#eef1f4;--color-text-secondary:#b4bcc4;--color-border-primary:#6b747d;--color-text-danger:#ffb4ab;
--color-background-danger:#3b1512;--color-text-success:#9bd8a8;--color-background-success:#10301a;--accent:#6ea8fe;--accent-text:#0b1a2e}
*{box-sizing:border-box}[hidden]{display:none!important}
body{margin:0;padding:1rem;font:16px/1.5 var(--font-sans);color:var(--color-text-primary);background:var(--color-background-primary)}
main{max-width:36rem;margin:0 auto}h1{font-size:1.35rem;margin:0 0 .25rem}
.intro{margin:0 0 1rem;color:var(--color-text-secondary)}
.field{margin:0 0 .9rem}label{display:block;font-weight:600;margin:0 0 .25rem}
input[type=text],textarea,select{width:100%;font:inherit;color:inherit;background:var(--color-background-primary);
padding:.55rem .7rem;border:1px solid var(--control-border,var(--color-border-primary));border-radius:var(--border-radius-md)}
textarea{min-height:8rem;resize:vertical}
.check{display:flex;gap:.6rem;align-items:flex-start}.check label{font-weight:400;margin:0}
.check input{width:1.15rem;height:1.15rem;margin:.2rem 0 0;flex:none;accent-color:var(--accent)}
input[type=text][aria-invalid=true],textarea[aria-invalid=true],select[aria-invalid=true]{border-color:var(--control-invalid,var(--color-text-danger));border-width:2px}
.check input[aria-invalid=true]{outline:2px solid var(--control-invalid,var(--color-text-danger));outline-offset:1px}
.error{margin:.25rem 0 0;color:var(--error-text,var(--color-text-danger));font-size:.92rem}.error:empty{display:none}
.alert,.done{margin:0 0 .9rem;padding:.6rem .8rem;border-radius:var(--border-radius-md)}
.alert{color:var(--alert-text,var(--color-text-danger));background:var(--color-background-danger)}
.done{color:var(--done-text,var(--color-text-success));background:var(--color-background-success);font-weight:600}
.done.pending{color:var(--color-text-primary);background:var(--color-background-secondary)}
.alert:empty,.done:empty{display:none}
button{font:inherit;font-weight:600;padding:.65rem 1.6rem;border:0;border-radius:var(--border-radius-md);
background:var(--accent);color:var(--accent-text);cursor:pointer}button:disabled{opacity:.65;cursor:progress}
:focus-visible{outline:3px solid var(--color-ring-primary);outline-offset:2px}`;

/** The page's program. Plain ES2020, no `//` anywhere (the document must not contain that sequence). */
const SCRIPT = String.raw`(function () {
'use strict';
var C = __CONFIG__;
var $ = function (id) { return document.getElementById(id); };
var form = $('form'), sendButton = $('send'), alertBox = $('alert'), doneBox = $('done'), picker = $('locale');
var FIELDS = ['name', 'email', 'message', 'privacy'];
var CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
var PROSE_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
var emailPattern;
try { emailPattern = new RegExp(C.emailPattern, 'u'); } catch (e) { emailPattern = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/; }
var ctx = {}, hostCapabilities = null, inputLocale = null, pickerTouched = false, errors = {}, status = null, sending = false, sent = false, deliveryPending = false, nextId = 1, pending = new Map();

function post(message) { message.jsonrpc = '2.0'; window.parent.postMessage(message, '*'); }
function request(method, params) {
  var id = nextId++;
  return new Promise(function (resolve, reject) { pending.set(id, { resolve: resolve, reject: reject }); post({ id: id, method: method, params: params }); });
}
function notify(method, params) { post(params === undefined ? { method: method } : { method: method, params: params }); }

function supported(tag) {
  if (typeof tag !== 'string') return null;
  var primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  return C.locales.indexOf(primary) >= 0 ? primary : null;
}
function browserLocale() {
  var tags = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
  for (var i = 0; i < tags.length; i++) { var found = supported(tags[i]); if (found) return found; }
  return null;
}
function language() { return supported(ctx.locale) || inputLocale || browserLocale() || C.fallback; }
function count(text) { return Array.from(text).length; }
function fill(text, values) { return text.replace(/\{(\w+)\}/g, function (all, key) { return String(values[key]); }); }

function values() {
  return { name: $('name').value.trim(), email: $('email').value.trim(), message: $('message').value, locale: picker.value, privacy: $('privacy').checked };
}
function validate(v) {
  var found = {};
  var text = function (field, required) {
    var n = count(v[field]);
    if (!v[field].trim()) found[field] = { key: required };
    else if (n > C.max[field]) found[field] = { key: 'tooLong', max: C.max[field], count: n };
  };
  text('name', 'nameRequired');
  if (!found.name && CONTROL.test(v.name)) found.name = { key: 'nameSingleLine' };
  if (!v.email) found.email = { key: 'emailRequired' };
  else if (count(v.email) > C.max.email) found.email = { key: 'tooLong', max: C.max.email, count: count(v.email) };
  else if (!emailPattern.test(v.email)) found.email = { key: 'emailInvalid' };
  text('message', 'messageRequired');
  if (!found.message && PROSE_CONTROL.test(v.message)) found.message = { key: 'messageControl' };
  if (!v.privacy) found.privacy = { key: 'privacyRequired' };
  return found;
}

function render() {
  var lang = language(), w = C.words[lang];
  document.documentElement.lang = lang;
  document.title = w.title;
  document.querySelectorAll('[data-w]').forEach(function (el) { el.textContent = w[el.getAttribute('data-w')]; });
  document.querySelectorAll('[data-ph]').forEach(function (el) { el.placeholder = w[el.getAttribute('data-ph')]; });
  if (!pickerTouched && !inputLocale) picker.value = lang;
  FIELDS.forEach(function (field) {
    var problem = errors[field], input = $(field);
    if (problem) input.setAttribute('aria-invalid', 'true'); else input.removeAttribute('aria-invalid');
    $(field + '-error').textContent = problem ? fill(w[problem.key], problem) : '';
  });
  var alertText = '';
  if (Object.keys(errors).length) alertText = w.summary;
  else if (status) alertText = fill(w[status.key], status);
  if (alertBox.textContent !== alertText) alertBox.textContent = alertText;
  doneBox.textContent = sent ? (deliveryPending ? w.deliveryPending : w.success) : '';
  doneBox.className = deliveryPending ? 'done pending' : 'done';
  sendButton.textContent = sending ? w.sending : w.send;
  sendButton.disabled = sending;
  form.setAttribute('aria-busy', sending ? 'true' : 'false');
  form.hidden = sent; $('intro').hidden = sent;
}

function showErrors(found) {
  errors = found; render();
  var first = FIELDS.filter(function (field) { return found[field]; })[0];
  if (first) $(first).focus();
}

function firstText(result) {
  var blocks = result && Array.isArray(result.content) ? result.content : [];
  for (var i = 0; i < blocks.length; i++) if (blocks[i] && blocks[i].type === 'text' && typeof blocks[i].text === 'string' && blocks[i].text) return blocks[i].text;
  return '';
}
function succeeded(result) {
  return !!result && typeof result === 'object' && result.isError !== true && !(result.structuredContent && result.structuredContent.ok === false);
}

/*
 * What a refused call means for the person, in the page's language: the server's own text is English
 * and for agents, so it is never shown. The tool's structured error codes are read; a validation
 * refusal names its fields ("name: ..., email: ..."), which are marked; anything else is a failure.
 */
function refusal(result) {
  var details = (result && result.structuredContent) || {};
  if (details.error === 'rate_limited') return { status: { key: 'rateLimited', minutes: Math.max(1, Math.ceil((Number(details.retryAfterSeconds) || 60) / 60)) } };
  if (details.error === 'delivery_failed') return { pending: true };
  if (details.error === 'store_unavailable') return { status: { key: 'unavailable' } };
  var text = firstText(result), fields = {};
  FIELDS.forEach(function (field) { if (new RegExp('(?:: |, )' + field + ': ').test(text)) fields[field] = { key: 'fieldRejected' }; });
  if (Object.keys(fields).length) return { errors: fields };
  return { status: { key: 'failure' } };
}

function canCallTools() { return !hostCapabilities || !!hostCapabilities.serverTools; }

function submit() {
  if (sending || sent) return;
  var v = values();
  $('name').value = v.name; $('email').value = v.email; status = null;
  showErrors(validate(v));
  if (Object.keys(errors).length) return;
  if (!canCallTools()) { status = { key: 'noToolCalls' }; render(); alertBox.focus(); return; }
  sending = true; render();
  var args = { name: v.name, email: v.email, message: v.message, locale: v.locale, privacy: true };
  request('tools/call', { name: C.tool, arguments: args }).then(function (result) {
    if (succeeded(result)) { sent = true; return; }
    var why = refusal(result);
    if (why.pending) { sent = true; deliveryPending = true; }
    else if (why.errors) errors = why.errors;
    else status = why.status;
  }, function (error) {
    status = { key: error && error.code === -32601 ? 'noToolCalls' : 'failure' };
  }).then(function () {
    sending = false; render();
    var first = FIELDS.filter(function (field) { return errors[field]; })[0];
    if (sent) doneBox.focus(); else if (first) $(first).focus(); else sendButton.focus();
  });
}

function prefill(args) {
  if (!args || typeof args !== 'object' || sent) return;
  ['name', 'email', 'message'].forEach(function (field) { if (typeof args[field] === 'string') $(field).value = args[field]; });
  var locale = supported(args.locale);
  if (locale) { inputLocale = locale; picker.value = locale; }
  render();
}

/*
 * WCAG 2.2 1.4.11: a control's boundary needs 3:1 against its background, and text 4.5:1 (1.4.3),
 * whatever colours the host's variables give. Each colour is the first candidate that reaches the
 * ratio against every background it sits on; black or white always reaches it.
 */
function channels(color) {
  var m = /rgba?\(([^)]+)\)/.exec(color);
  if (!m) return null;
  var p = m[1].split(/[\s,\/]+/).filter(Boolean).map(parseFloat);
  return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
}
function resolveColor(value, under) {
  var probe = $('probe');
  probe.style.color = ''; probe.style.color = value;
  var c = channels(getComputedStyle(probe).color);
  if (!c) return null;
  return under ? { r: c.r * c.a + under.r * (1 - c.a), g: c.g * c.a + under.g * (1 - c.a), b: c.b * c.a + under.b * (1 - c.a), a: 1 } : c;
}
function luminance(c) {
  var f = function (v) { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
}
function contrast(a, b) { var x = luminance(a), y = luminance(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); }
function guardContrast() {
  var dark = document.documentElement.getAttribute('data-theme') === 'dark';
  var base = dark ? { r: 0, g: 0, b: 0, a: 1 } : { r: 255, g: 255, b: 255, a: 1 };
  var page = resolveColor('var(--color-background-primary)', base) || base;
  var backgrounds = { page: [page], alert: [resolveColor('var(--color-background-danger)', page) || page], done: [resolveColor('var(--color-background-success)', page) || page] };
  var pick = function (name, candidates, against, ratio) {
    var root = document.documentElement.style;
    root.removeProperty(name);
    for (var i = 0; i < candidates.length; i++) {
      var c = resolveColor(candidates[i], against[0]);
      if (c && against.every(function (bg) { return contrast(c, bg) >= ratio; })) { root.setProperty(name, 'rgb(' + [c.r, c.g, c.b].map(Math.round).join(',') + ')'); return; }
    }
  };
  var last = ['var(--color-text-primary)', '#000', '#fff'];
  pick('--control-border', ['var(--color-border-primary)', 'var(--color-text-secondary)'].concat(last), backgrounds.page, 3);
  pick('--control-invalid', ['var(--color-text-danger)'].concat(last), backgrounds.page, 3);
  pick('--error-text', ['var(--color-text-danger)'].concat(last), backgrounds.page, 4.5);
  pick('--alert-text', ['var(--color-text-danger)'].concat(last), backgrounds.alert, 4.5);
  pick('--done-text', ['var(--color-text-success)'].concat(last), backgrounds.done, 4.5);
}

function applyContext(patch) {
  if (!patch || typeof patch !== 'object') return;
  ctx = Object.assign({}, ctx, patch);
  var root = document.documentElement, vars = ctx.styles && ctx.styles.variables;
  root.setAttribute('data-theme', ctx.theme === 'dark' ? 'dark' : 'light');
  if (vars && typeof vars === 'object') Object.keys(vars).forEach(function (key) {
    if (key.indexOf('--') === 0 && typeof vars[key] === 'string') root.style.setProperty(key, vars[key]);
  });
  guardContrast();
  render();
}

function onNotification(method, params) {
  if (method === 'ui/notifications/tool-input') prefill(params.arguments);
  else if (method === 'ui/notifications/tool-result') {
    if (sending || sent) return;
    if (succeeded(params)) sent = true;
    else if (refusal(params).pending) { sent = true; deliveryPending = true; }
    render();
  }
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

sendButton.addEventListener('click', function (event) { event.preventDefault(); submit(); });
form.addEventListener('submit', function (event) { event.preventDefault(); submit(); });
picker.addEventListener('change', function () { pickerTouched = true; });
form.addEventListener('input', function (event) {
  var field = event.target && event.target.id;
  if (!errors[field]) return;
  var now = validate(values());
  if (now[field]) errors[field] = now[field]; else delete errors[field];
  render();
});

render();
guardContrast();
request('ui/initialize', { appInfo: C.appInfo, appCapabilities: { availableDisplayModes: ['inline'] }, protocolVersion: C.protocolVersion })
  .then(function (result) {
    if (result && result.hostCapabilities && typeof result.hostCapabilities === 'object') hostCapabilities = result.hostCapabilities;
    applyContext(result && result.hostContext); notify('ui/notifications/initialized');
  }, function () {})
  .then(reportSize);
})();`;

function buildHtml(): string {
  const [name, email, message] = (['name', 'email', 'message'] as const).map(schemaOf) as [Limits, Limits, Limits];
  if (!email.pattern) throw new Error('ContactRequest.email has no pattern');
  const config = {
    words: FORM_WORDS,
    locales: LOCALES,
    fallback: 'en',
    max: { name: name.maxLength, email: email.maxLength, message: message.maxLength },
    emailPattern: email.pattern,
    tool: CONTACT_TOOL,
    appInfo: { name: 'portico-contact-form', version: '1.0.0' },
    protocolVersion: MCP_APPS_PROTOCOL_VERSION,
  };
  const options = LOCALES.map((locale) => `<option value="${locale}" lang="${locale}">${escapeHtml(LANGUAGE_NAMES[locale])}</option>`).join('');
  const field = (id: string, control: string) =>
    `<div class="field"><label for="${id}" data-w="${id}"></label>${control}<p id="${id}-error" class="error"></p></div>`;
  return `<!doctype html>
<html lang="en" data-theme="light">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(FORM_WORDS.en.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1 id="title" data-w="title"></h1>
<p id="intro" class="intro"><span data-w="intro"></span> <span data-w="allRequired"></span></p>
<p id="done" class="done" role="status" tabindex="-1"></p>
<form id="form" novalidate aria-labelledby="title">
${field('name', '<input id="name" name="name" type="text" autocomplete="name" required aria-describedby="name-error" data-ph="namePlaceholder">')}
${field('email', '<input id="email" name="email" type="text" inputmode="email" autocomplete="email" autocapitalize="off" spellcheck="false" required aria-describedby="email-error" data-ph="emailPlaceholder">')}
${field('message', '<textarea id="message" name="message" rows="6" required aria-describedby="message-error" data-ph="messagePlaceholder"></textarea>')}
<div class="field"><label for="locale" data-w="locale"></label><select id="locale" name="locale">${options}</select></div>
<div class="field"><div class="check"><input id="privacy" name="privacy" type="checkbox" required aria-describedby="privacy-error"><label for="privacy" data-w="privacy"></label></div><p id="privacy-error" class="error"></p></div>
<p id="alert" class="alert" role="alert" tabindex="-1"></p>
<button id="send" type="submit" data-w="send"></button>
</form>
</main>
<span id="probe" hidden></span>
<script>${SCRIPT.replace('__CONFIG__', () => scriptJson(config))}</script>
</body>
</html>
`;
}

let cached: string | undefined;
/** The app's HTML (built once): the text of `resources/read` for CONTACT_FORM_URI. */
export const contactFormHtml = (): string => (cached ??= buildHtml());
