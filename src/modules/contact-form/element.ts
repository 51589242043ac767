// The contact form as a custom element for any web page, <portico-contact-form>: the shared form
// (./form-core.ts) in a shadow root, sending to POST /api/contact. One script file, no framework, no
// build step for the site; it evaluates no strings and needs no inline script or style on the page
// (its style is a constructed style sheet of its shadow root), so it runs under a strict CSP.
import { scriptJson } from '../common/html.js';
import { FORM_SCRIPT, FORM_STYLE, formConfig } from './form-core.js';

/** Where the Turnstile widget's script comes from, unless the page has loaded `window.turnstile` itself. */
export const TURNSTILE_SCRIPT_URL = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';

/**
 * How long the element waits for Portico's answer. Portico answers every inquiry within about 15 s (at
 * most 1 s waiting for a place under load, 14 s for its delivery); past 30 s the answer is lost.
 */
export const TIMEOUT_SECONDS = 30;

/**
 * The element's shell. Attributes: `locale` (else the nearest `lang`, else the browser's language),
 * `endpoint` (else the origin this script came from), `turnstile-sitekey` and `privacy-policy` (else
 * /embed/config.json's turnstileSiteKey and privacyPolicyUrl),
 * `topic` (`sales`, `demo` or `support`: the choice made before the visitor chooses), `hide-topic` (no
 * choice shown: the inquiry has the `topic` attribute's topic, or none),
 * `theme` (`light`, the default, `dark` or `auto`), `timeout` (seconds to wait for an answer, else
 * TIMEOUT_SECONDS). Events, bubbling out of the shadow root: `portico:sent` ({ pending }) and
 * `portico:error` ({ status, error }).
 */
const SHELL = String.raw`(function () {
'use strict';
if (!window.customElements || window.customElements.get('portico-contact-form')) return;
var C = __CONFIG__;
var script = document.currentScript;
var scriptOrigin = script && script.src ? new URL(script.src, document.baseURI).origin : window.location.origin;
var configs = {};
var turnstileLoading = null;

function siteConfig(endpoint) {
  if (!configs[endpoint]) {
    configs[endpoint] = fetch(endpoint + '/embed/config.json', { credentials: 'omit' })
      .then(function (response) { return response.ok ? response.json() : {}; })
      .catch(function () { return {}; });
  }
  return configs[endpoint];
}
function turnstileApi() {
  if (window.turnstile) return Promise.resolve(window.turnstile);
  if (!turnstileLoading) {
    turnstileLoading = new Promise(function (resolve, reject) {
      var tag = document.createElement('script');
      tag.src = C.turnstileScript; tag.async = true;
      tag.onload = function () { if (window.turnstile) resolve(window.turnstile); else reject(new Error('Turnstile did not load')); };
      tag.onerror = function () { reject(new Error('Turnstile did not load')); };
      document.head.appendChild(tag);
    });
  }
  return turnstileLoading;
}
function newKey() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  return Array.prototype.map.call(crypto.getRandomValues(new Uint8Array(16)), function (b) { return (b + 256).toString(16).slice(1); }).join('');
}
function retryAfterSeconds(response) {
  var seconds = Number(response.headers.get('retry-after'));
  return isFinite(seconds) && seconds > 0 ? seconds : 60;
}
/* A 400 names each field at fault at the start of a part of its description: "name must ...; email must ...". */
function fieldErrors(description) {
  var fields = {};
  String(description || '').split(/;\s*/).forEach(function (part) {
    var m = /^(name|email|message|privacy)\b/.exec(part);
    if (m) fields[m[1]] = { key: 'fieldRejected' };
  });
  return fields;
}

class PorticoContactForm extends HTMLElement {
  static get observedAttributes() { return ['locale', 'theme', 'privacy-policy', 'topic', 'hide-topic']; }

  connectedCallback() {
    if (this.form) return;
    var self = this;
    this.endpoint = (this.getAttribute('endpoint') || scriptOrigin).replace(/\/+$/, '');
    this.attempt = null;
    this.token = null;
    this.notBefore = 0;
    var shadow = this.attachShadow({ mode: 'open' });
    var sheet = new CSSStyleSheet();
    sheet.replaceSync(C.style + ':host{display:block}');
    shadow.adoptedStyleSheets = [sheet];
    var container = document.createElement('div');
    shadow.appendChild(container);
    var slot = document.createElement('slot');
    slot.name = 'turnstile';
    var holder = document.createElement('div');
    holder.className = 'field';
    holder.appendChild(slot);
    this.form = porticoContactForm(container, C, {
      /* The attribute when it names one of the six, else the nearest lang (the page's). */
      locale: function () {
        var around = self.closest('[lang]');
        return [self.getAttribute('locale'), around && around.getAttribute('lang')];
      },
      beforeSend: holder,
      privacyPolicy: function () { return self.getAttribute('privacy-policy') || self.privacyPolicyUrl || null; },
      topic: function () { return { preset: self.getAttribute('topic'), hidden: self.hasAttribute('hide-topic') }; },
      send: function (values) { return self.send(values); }
    });
    this.container = container;
    this.applyTheme();
    var attribute = this.getAttribute('turnstile-sitekey');
    siteConfig(this.endpoint).then(function (config) {
      var sitekey = attribute || (config && config.turnstileSiteKey);
      if (typeof sitekey === 'string' && sitekey) self.renderTurnstile(sitekey);
      if (config && typeof config.privacyPolicyUrl === 'string') {
        self.privacyPolicyUrl = config.privacyPolicyUrl;
        self.form.render();
      }
    });
  }

  attributeChangedCallback(name) {
    if (!this.form) return;
    if (name === 'theme') this.applyTheme(); else this.form.render();
  }

  applyTheme() {
    var theme = this.getAttribute('theme');
    var dark = theme === 'dark' || (theme === 'auto' && window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches);
    this.form.setTheme(dark);
  }

  renderTurnstile(sitekey) {
    var self = this;
    this.sitekey = sitekey;
    this.turnstileFailed = false;
    if (!this.turnstileTarget) {
      this.turnstileTarget = document.createElement('div');
      this.turnstileTarget.slot = 'turnstile';
      this.appendChild(this.turnstileTarget);
    }
    turnstileApi().then(function (api) {
      self.turnstile = api;
      self.widget = api.render(self.turnstileTarget, {
        sitekey: sitekey,
        language: self.container.getAttribute('lang') || 'auto',
        theme: self.getAttribute('theme') === 'dark' ? 'dark' : 'light',
        callback: function (token) { self.token = token; },
        'expired-callback': function () { self.token = null; },
        'error-callback': function () { self.token = null; }
      });
    }, function () {
      /* Said before the visitor fills the form; the next Send loads it again. */
      self.turnstileFailed = true;
      turnstileLoading = null;
      self.form.notice({ key: 'humanCheckUnavailable' });
      self.emit('portico:error', { status: 0, error: 'turnstile_unavailable' });
    });
  }

  resetTurnstile() {
    this.token = null;
    if (this.turnstile && this.widget !== undefined) this.turnstile.reset(this.widget);
  }

  emit(name, detail) {
    this.dispatchEvent(new CustomEvent(name, { detail: detail, bubbles: true, composed: true }));
  }

  send(values) {
    var self = this;
    if (Date.now() < this.notBefore) return this.waiting;
    if (this.sitekey && !this.token) {
      if (this.turnstileFailed) this.renderTurnstile(this.sitekey);
      return { status: { key: 'humanCheckWaiting' } };
    }
    var fingerprint = JSON.stringify(values);
    /* One Idempotency-Key for one filled form, kept with its Turnstile token across retries. */
    if (!this.attempt || this.attempt.fingerprint !== fingerprint) this.attempt = { fingerprint: fingerprint, key: newKey(), token: this.token };
    var body = Object.assign({}, values);
    if (this.sitekey) body.turnstileToken = this.attempt.token;
    var seconds = Number(this.getAttribute('timeout'));
    var deadline = new AbortController();
    var timer = setTimeout(function () { deadline.abort(); }, (seconds > 0 ? seconds : C.timeoutSeconds) * 1000);
    return fetch(this.endpoint + '/api/contact', {
      method: 'POST',
      mode: 'cors',
      credentials: 'omit',
      headers: { 'content-type': 'application/json', 'idempotency-key': this.attempt.key },
      body: JSON.stringify(body),
      signal: deadline.signal
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (answer) { clearTimeout(timer); return self.settle(response, answer); });
    }, function () {
      /* No answer: the attempt and its Idempotency-Key stay, so sending again replays, never sends twice. */
      clearTimeout(timer);
      self.emit('portico:error', { status: 0, error: deadline.signal.aborted ? 'timeout' : 'network' });
      return { status: { key: 'noAnswer' } };
    });
  }

  settle(response, answer) {
    var status = response.status, outcome;
    if (status === 200) outcome = { ok: true };
    else if (status === 502) outcome = { pending: true };
    else if (status === 400) {
      var fields = fieldErrors(answer.error_description);
      outcome = Object.keys(fields).length ? { errors: fields } : { status: { key: 'failure' } };
    } else if (status === 403) outcome = { status: { key: 'humanCheckFailed' } };
    else if (status === 429 || status === 503) {
      var seconds = retryAfterSeconds(response);
      outcome = { status: { key: status === 429 ? 'rateLimited' : 'unavailable', minutes: Math.max(1, Math.ceil(seconds / 60)) } };
      this.notBefore = Date.now() + seconds * 1000;
      this.waiting = outcome;
    } else outcome = { status: { key: 'failure' } };
    if (outcome.ok || outcome.pending) {
      this.attempt = null;
      this.emit('portico:sent', { pending: !!outcome.pending });
    } else {
      if (status === 403) { this.attempt = null; this.resetTurnstile(); }
      this.emit('portico:error', { status: status, error: answer.error || null });
    }
    return outcome;
  }
}

window.customElements.define('portico-contact-form', PorticoContactForm);
})();`;

let cached: string | undefined;
/** The script served at /embed/contact-form.js: the form, then the element around it. */
export function contactFormElementScript(): string {
  // One outer scope: the form's function is not left on the page's window.
  const shell = SHELL.replace('__CONFIG__', () => scriptJson({ ...formConfig(), style: FORM_STYLE, turnstileScript: TURNSTILE_SCRIPT_URL, timeoutSeconds: TIMEOUT_SECONDS }));
  cached ??= `(function () {\n${FORM_SCRIPT}\n${shell}\n})();\n`;
  return cached;
}
