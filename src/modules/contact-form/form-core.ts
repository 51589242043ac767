// The contact form itself, one module for every shell that shows it: its fields and their rules (taken
// from the ContactRequest schema), its words in the six locales, its markup, its style and its program.
// A shell (the MCP App page, the embeddable element) puts the form in a container, says which language
// its surroundings ask for, and sends the values by its own channel, answering in the outcomes below.
//
// The program is plain ES2020 run in the browser, written without `//` (the MCP App's document must not
// contain that sequence) and without building markup from strings: it makes its elements with the DOM,
// so it runs under a strict CSP and Trusted Types.
import * as z from 'zod';
import { ContactRequest } from '../contact/schema.js';
import { LOCALES } from '../common/locales.js';
import { TOPICS, TOPIC_WORDS } from '../common/topics.js';
import { CONTRAST_GUARD } from './form-contrast-guard.js';
import { FORM_WORDS, LANGUAGE_NAMES } from './form-words.js';

export { FORM_STYLE } from './form-style.js';

/** What the form's program needs: the words, the locales, the limits and the e-mail pattern of the schema. */
export interface FormConfig {
  words: typeof FORM_WORDS;
  languageNames: typeof LANGUAGE_NAMES;
  locales: readonly string[];
  /** The topics offered, and their names in each locale. */
  topics: readonly string[];
  topicWords: typeof TOPIC_WORDS;
  /** The language when nothing around the form names one of the six. */
  fallback: string;
  max: { name: number; email: number; message: number };
  emailPattern: string;
}

function limitsOf(field: 'name' | 'email' | 'message'): { maxLength: number; pattern?: string } {
  const schema = z.toJSONSchema(ContactRequest.shape[field], { io: 'input' }) as { maxLength?: unknown; pattern?: unknown };
  if (typeof schema.maxLength !== 'number') throw new Error(`ContactRequest.${field} has no maxLength`);
  return { maxLength: schema.maxLength, ...(typeof schema.pattern === 'string' ? { pattern: schema.pattern } : {}) };
}

/** The limits and the e-mail pattern come from the ContactRequest schema itself, so no shell can drift from it. */
export function formConfig(): FormConfig {
  const [name, email, message] = (['name', 'email', 'message'] as const).map(limitsOf) as [ReturnType<typeof limitsOf>, ReturnType<typeof limitsOf>, ReturnType<typeof limitsOf>];
  if (!email.pattern) throw new Error('ContactRequest.email has no pattern');
  return {
    words: FORM_WORDS,
    languageNames: LANGUAGE_NAMES,
    locales: LOCALES,
    topics: TOPICS,
    topicWords: TOPIC_WORDS,
    fallback: 'en',
    max: { name: name.maxLength, email: email.maxLength, message: message.maxLength },
    emailPattern: email.pattern,
  };
}

/**
 * The program: `porticoContactForm(container, config, shell)` builds the form in `container` and returns
 * its controls. The shell gives:
 * - `locale()`: the language its surroundings ask for (a BCP 47 tag, or null), or the tags it asks for in
 *   order, of which the first the form speaks wins;
 * - `send(values)`: a promise of one outcome, `{ ok: true }`, `{ pending: true }` (kept, not delivered
 *   yet: not to be sent again), `{ errors: { field: { key } } }`, or `{ status: { key, ...values } }`;
 * - `rendered(language, words)`, optional: told after each render;
 * - `privacyPolicy()`, optional: the privacy policy's address, linked from the consent checkbox, or null;
 * - `topic()`, optional: `{ preset, hidden }`, the topic chosen before the person chooses (or null), and
 *   whether the choice is hidden (the page asks for one kind of inquiry only);
 * - `openLink(url)`, optional: opens the link itself (the MCP App, through its host) and says so;
 * - `beforeSend`, optional: a node put in the form above its alert and button (the element's Turnstile slot).
 */
export const FORM_SCRIPT = String.raw`function porticoContactForm(container, C, shell) {
'use strict';
var doc = container.ownerDocument;
var FIELDS = ['name', 'email', 'message', 'privacy'];
var CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
var PROSE_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
var emailPattern;
try { emailPattern = new RegExp(C.emailPattern, 'u'); } catch (e) { emailPattern = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/; }
var state = { inputLocale: null, pickerTouched: false, topicTouched: false, errors: {}, status: null, sending: false, sent: false, pending: false };

function make(tag, attributes, children) {
  var node = doc.createElement(tag);
  Object.keys(attributes || {}).forEach(function (name) {
    var value = attributes[name];
    if (value === true) node.setAttribute(name, '');
    else if (value !== false && value !== undefined) node.setAttribute(name, String(value));
  });
  (children || []).forEach(function (child) { node.appendChild(child); });
  return node;
}
function words(key) { return make('span', { 'data-w': key }); }
function field(id, control) {
  return make('div', { class: 'field' }, [make('label', { for: id, 'data-w': id }), control, make('p', { id: id + '-error', class: 'error' })]);
}

var ui = {};
ui.title = make('h1', { id: 'title', 'data-w': 'title' });
ui.intro = make('p', { id: 'intro', class: 'intro' }, [words('intro'), doc.createTextNode(' '), words('allRequired')]);
ui.done = make('p', { id: 'done', class: 'done', role: 'status', tabindex: '-1' });
ui.name = make('input', { id: 'name', name: 'name', type: 'text', autocomplete: 'name', required: true, 'aria-describedby': 'name-error', 'data-ph': 'namePlaceholder' });
ui.email = make('input', { id: 'email', name: 'email', type: 'text', inputmode: 'email', autocomplete: 'email', autocapitalize: 'off', spellcheck: 'false', required: true, 'aria-describedby': 'email-error', 'data-ph': 'emailPlaceholder' });
ui.message = make('textarea', { id: 'message', name: 'message', rows: '6', required: true, 'aria-describedby': 'message-error', 'data-ph': 'messagePlaceholder' });
ui.topic = make('select', { id: 'topic', name: 'topic' }, [''].concat(C.topics).map(function (topic) { return make('option', { value: topic }); }));
ui.topicField = make('div', { class: 'field' }, [make('label', { for: 'topic', id: 'topic-label' }), ui.topic]);
ui.locale = make('select', { id: 'locale', name: 'locale' }, C.locales.map(function (locale) {
  var option = make('option', { value: locale, lang: locale });
  option.textContent = C.languageNames[locale];
  return option;
}));
ui.privacy = make('input', { id: 'privacy', name: 'privacy', type: 'checkbox', required: true, 'aria-describedby': 'privacy-error' });
ui.consent = make('label', { for: 'privacy' });
ui.alert = make('p', { id: 'alert', class: 'alert', role: 'alert', tabindex: '-1' });
ui.send = make('button', { id: 'send', type: 'submit', 'data-w': 'send' });
ui.form = make('form', { id: 'form', novalidate: true, 'aria-labelledby': 'title' }, [
  field('name', ui.name), field('email', ui.email), ui.topicField, field('message', ui.message),
  make('div', { class: 'field' }, [make('label', { for: 'locale', 'data-w': 'locale' }), ui.locale]),
  make('div', { class: 'field' }, [make('div', { class: 'check' }, [ui.privacy, ui.consent]), make('p', { id: 'privacy-error', class: 'error' })]),
  ui.alert, ui.send
]);
if (shell.beforeSend) ui.form.insertBefore(shell.beforeSend, ui.alert);
ui.probe = make('span', { hidden: true });
container.classList.add('pf');
container.appendChild(make('div', { class: 'inner' }, [ui.title, ui.intro, ui.done, ui.form]));
container.appendChild(ui.probe);
var errorOf = function (id) { return container.querySelector('#' + id + '-error'); };

function supported(tag) {
  if (typeof tag !== 'string') return null;
  var primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  return C.locales.indexOf(primary) >= 0 ? primary : null;
}
/* The first of the tags, in order, that names a language the form speaks. */
function firstSupported(tags) {
  for (var i = 0; i < tags.length; i++) { var found = supported(tags[i]); if (found) return found; }
  return null;
}
function browserLocale() { return firstSupported(navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language]); }
function language() { return firstSupported([].concat(shell.locale())) || state.inputLocale || browserLocale() || C.fallback; }
function count(text) { return Array.from(text).length; }
function fill(text, values) { return text.replace(/\{(\w+)\}/g, function (all, key) { return String(values[key]); }); }

function values() {
  return { name: ui.name.value.trim(), email: ui.email.value.trim(), topic: ui.topic.value, message: ui.message.value, locale: ui.locale.value, privacy: ui.privacy.checked };
}
function validate(v) {
  var found = {};
  var text = function (name, required) {
    var n = count(v[name]);
    if (!v[name].trim()) found[name] = { key: required };
    else if (n > C.max[name]) found[name] = { key: 'tooLong', max: C.max[name], count: n };
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

/* The consent's words around the policy's name, which links to the policy when the shell knows where it is. */
var consentShown = null;
function renderConsent(w) {
  var url = shell.privacyPolicy ? shell.privacyPolicy() : null;
  var scheme = typeof url === 'string' ? url.slice(0, url.indexOf(':')).toLowerCase() : '';
  if (scheme !== 'http' && scheme !== 'https') url = null;
  if (consentShown === w.privacy + url) return;
  consentShown = w.privacy + url;
  var parts = w.privacy.split('{policy}');
  var policy = url ? make('a', { id: 'privacy-policy', href: url, target: '_blank', rel: 'noopener noreferrer' }) : make('span');
  policy.textContent = w.privacyPolicy;
  if (url && shell.openLink) policy.addEventListener('click', function (event) { if (shell.openLink(url)) event.preventDefault(); });
  ui.consent.replaceChildren(doc.createTextNode(parts[0]), policy, doc.createTextNode(parts[1] || ''));
}

/* The choice of topic in the form's language; what the page presets, until the person chooses. */
function renderTopic(lang) {
  var t = C.topicWords[lang], choice = shell.topic ? shell.topic() : null;
  container.querySelector('#topic-label').textContent = t.label;
  Array.prototype.forEach.call(ui.topic.options, function (option) { option.textContent = option.value ? t.names[option.value] : t.general; });
  var preset = choice && C.topics.indexOf(choice.preset) >= 0 ? choice.preset : '';
  var hidden = !!(choice && choice.hidden);
  if (hidden) ui.topic.value = preset;
  else if (preset && !state.topicTouched && !state.inputTopic) ui.topic.value = preset;
  ui.topicField.hidden = hidden;
}

function render() {
  var lang = language(), w = C.words[lang];
  renderConsent(w);
  renderTopic(lang);
  container.setAttribute('lang', lang);
  container.querySelectorAll('[data-w]').forEach(function (node) { node.textContent = w[node.getAttribute('data-w')]; });
  container.querySelectorAll('[data-ph]').forEach(function (node) { node.placeholder = w[node.getAttribute('data-ph')]; });
  if (!state.pickerTouched && !state.inputLocale) ui.locale.value = lang;
  FIELDS.forEach(function (name) {
    var problem = state.errors[name];
    if (problem) ui[name].setAttribute('aria-invalid', 'true'); else ui[name].removeAttribute('aria-invalid');
    errorOf(name).textContent = problem ? fill(w[problem.key], problem) : '';
  });
  var alertText = '';
  if (Object.keys(state.errors).length) alertText = w.summary;
  else if (state.status) alertText = fill(w[state.status.key], state.status);
  if (ui.alert.textContent !== alertText) ui.alert.textContent = alertText;
  ui.done.textContent = state.sent ? (state.pending ? w.deliveryPending : w.success) : '';
  ui.done.className = state.pending ? 'done pending' : 'done';
  ui.send.textContent = state.sending ? w.sending : w.send;
  ui.send.disabled = state.sending;
  ui.form.setAttribute('aria-busy', state.sending ? 'true' : 'false');
  ui.form.hidden = state.sent; ui.intro.hidden = state.sent;
  if (shell.rendered) shell.rendered(lang, w);
}

function focusFirstError() {
  var first = FIELDS.filter(function (name) { return state.errors[name]; })[0];
  if (first) ui[first].focus();
  return !!first;
}

function submit() {
  if (state.sending || state.sent) return;
  var v = values();
  ui.name.value = v.name; ui.email.value = v.email; state.status = null;
  state.errors = validate(v); render();
  if (focusFirstError()) return;
  state.sending = true; render();
  /* The words beside the checkbox, as the person read them: their digest is the record of the consent. */
  var sent = { name: v.name, email: v.email, message: v.message, locale: v.locale, privacy: true, consentText: ui.consent.textContent };
  if (v.topic) sent.topic = v.topic;
  Promise.resolve().then(function () { return shell.send(sent); }).then(function (outcome) {
    outcome = outcome || { status: { key: 'failure' } };
    if (outcome.ok) state.sent = true;
    else if (outcome.pending) { state.sent = true; state.pending = true; }
    else if (outcome.errors) state.errors = outcome.errors;
    else state.status = outcome.status || { key: 'failure' };
  }, function () {
    state.status = { key: 'failure' };
  }).then(function () {
    state.sending = false; render();
    if (state.sent) ui.done.focus(); else if (!focusFirstError()) (state.status ? ui.alert : ui.send).focus();
  });
}

${CONTRAST_GUARD}

ui.send.addEventListener('click', function (event) { event.preventDefault(); submit(); });
ui.form.addEventListener('submit', function (event) { event.preventDefault(); submit(); });
ui.locale.addEventListener('change', function () { state.pickerTouched = true; });
ui.topic.addEventListener('change', function () { state.topicTouched = true; });
ui.form.addEventListener('input', function (event) {
  var name = event.target && event.target.id;
  if (!state.errors[name]) return;
  var now = validate(values());
  if (now[name]) state.errors[name] = now[name]; else delete state.errors[name];
  render();
});

guardContrast();
render();
return {
  render: render,
  guardContrast: guardContrast,
  supported: supported,
  get sent() { return state.sent; },
  get sending() { return state.sending; },
  /* The assistant's or the page's values, before the person edits them; consent is never pre-filled. */
  prefill: function (args) {
    if (!args || typeof args !== 'object' || state.sent) return;
    ['name', 'email', 'message'].forEach(function (name) { if (typeof args[name] === 'string') ui[name].value = args[name]; });
    var locale = supported(args.locale);
    if (locale) { state.inputLocale = locale; ui.locale.value = locale; }
    if (C.topics.indexOf(args.topic) >= 0 && !state.topicTouched) { state.inputTopic = args.topic; ui.topic.value = args.topic; }
    render();
  },
  /* A status the shell learned by itself (the human check did not load): shown unless the form is busy. */
  notice: function (status) {
    if (state.sending || state.sent) return;
    state.status = status;
    render();
  },
  /* An outcome that reached the shell another way (the host's own call): shown unless the form is busy. */
  settle: function (outcome) {
    if (state.sending || state.sent || !outcome) return;
    if (outcome.ok) state.sent = true;
    else if (outcome.pending) { state.sent = true; state.pending = true; }
    else return;
    render();
  },
  setTheme: function (dark) { container.setAttribute('data-theme', dark ? 'dark' : 'light'); guardContrast(); render(); }
};
}`;
