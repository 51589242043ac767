// GET /embed: what a site's developer copies to put the contact form on the site (the snippet with its
// integrity value, the CSP lines, the attributes, events and style properties) and a live preview in each
// locale. Like /docs: a strict CSP, every script and style served by Portico, nothing inline.
import * as z from 'zod';
import { escapeHtml } from '../common/html.js';
import { LOCALES } from '../common/locales.js';
import { route, type RouteSpec } from '../common/route-spec.js';
import { asset, assetRoute } from '../discovery/static-asset.js';
import { LANGUAGE_NAMES } from './form-words.js';

/** The element's script, as the snippet names it. */
export interface EmbedScript {
  /** `/embed/contact-form.<digest>.js`: the same bytes, cached for a year. */
  path: string;
  /** The Subresource Integrity value of the script (sha384, base64). */
  integrity: string;
}

export const TURNSTILE_ORIGIN = 'https://challenges.cloudflare.com';

export interface EmbedPageSettings {
  publicUrl: string;
  /** Whether Portico checks browsers with Turnstile: the site then loads Cloudflare's widget too. */
  turnstile: boolean;
  script: EmbedScript;
}

const PAGE_SCRIPT = `'use strict';
(function () {
  var picker = document.getElementById('preview-locale');
  var preview = document.getElementById('preview');
  picker.addEventListener('change', function () { preview.setAttribute('locale', picker.value); });
})();
`;

const PAGE_STYLE = `body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f4f6f8}
main{max-width:52rem;margin:0 auto;padding:1.5rem 1rem 3rem}h1{font-size:1.7rem;margin:0 0 .5rem}h2{font-size:1.2rem;margin:2rem 0 .5rem}
pre{background:#1b1f24;color:#eef1f4;padding:.9rem 1rem;border-radius:8px;overflow-x:auto;font-size:.9rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}p code,td code{background:#e4e8ec;padding:.05rem .3rem;border-radius:4px}
table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;vertical-align:top;padding:.45rem .6rem;border:1px solid #c9d0d6}
.preview{background:#fff;border:1px solid #8a949e;border-radius:10px;padding:.5rem;margin-top:.75rem}
label{font-weight:600}select{font:inherit;margin-left:.5rem;padding:.25rem .4rem;border:1px solid #5f6b76;border-radius:6px}`;

/** The lines a site's Content-Security-Policy needs for the element (and Cloudflare's widget when Turnstile is on). */
export function siteCspLines(publicUrl: string, turnstile: boolean): string[] {
  const origin = new URL(publicUrl).origin;
  return [`script-src ${origin}${turnstile ? ` ${TURNSTILE_ORIGIN}` : ''}`, `connect-src ${origin}`, ...(turnstile ? [`frame-src ${TURNSTILE_ORIGIN}`] : [])];
}

/** The two lines a site pastes. */
export function embedSnippet(publicUrl: string, script: EmbedScript): string {
  return `<script src="${publicUrl}${script.path}" integrity="${script.integrity}" crossorigin="anonymous" defer></script>\n<portico-contact-form></portico-contact-form>`;
}

/**
 * GET /embed, with its style sheet and script: the snippet, CSP lines and reference for a site's developer
 * and a live form, under a strict CSP that lets Cloudflare's widget in only when Turnstile is on.
 */
export function embedPageRoutes(settings: EmbedPageSettings): RouteSpec[] {
  const styles = asset('/embed/assets', 'embed-page', 'css', PAGE_STYLE);
  const script = asset('/embed/assets', 'embed-page', 'js', PAGE_SCRIPT);
  const turnstile = settings.turnstile ? ` ${TURNSTILE_ORIGIN}` : '';
  const csp = [
    "default-src 'none'",
    `script-src 'self'${turnstile}`,
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data:",
    `frame-src ${settings.turnstile ? TURNSTILE_ORIGIN : "'none'"}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const relative = (path: string) => escapeHtml(path.slice(1));
  const rows = (entries: [string, string][]) => entries.map(([name, text]) => `<tr><td><code>${escapeHtml(name)}</code></td><td>${text}</td></tr>`).join('\n');
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>The contact form for your site</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${relative(styles.path)}">
<script src="${relative(settings.script.path)}" defer></script>
<script src="${relative(script.path)}" defer></script>
</head>
<body>
<main>
<h1>The contact form for your site</h1>
<p>The same form as the MCP App, as one element: six languages, every field checked as the API checks it,
${settings.turnstile ? 'the Turnstile check, ' : ''}safe retries, and each refusal explained in the visitor's language. Paste these two lines where it should appear:</p>
<pre tabindex="0" aria-label="The snippet"><code id="snippet">${escapeHtml(embedSnippet(settings.publicUrl, settings.script))}</code></pre>
<p>Your site's origin must be listed in Portico's <code>CONTACT_ALLOWED_ORIGINS</code>; others cannot send.
The file named above never changes (its name carries its digest): the <code>integrity</code> value holds it to these bytes.
<code>${escapeHtml(settings.publicUrl)}/embed/contact-form.js</code> is always the current version, without <code>integrity</code>.</p>
<h2>Your site's Content-Security-Policy</h2>
<p>Add these sources to your policy. The element needs no inline script or style, and evaluates no strings.</p>
<pre tabindex="0" aria-label="The CSP lines"><code id="csp">${escapeHtml(siteCspLines(settings.publicUrl, settings.turnstile).join('\n'))}</code></pre>
<h2>Attributes</h2>
<table>
<thead><tr><th scope="col">Attribute</th><th scope="col">What it does</th></tr></thead>
<tbody>
${rows([
  ['locale', `The form's language: ${LOCALES.join(', ')}. Else (missing, or another language) the page's <code>lang</code>, else the browser's language, else English.`],
  ['endpoint', 'The Portico to send to. Else the origin the script was loaded from.'],
  ['turnstile-sitekey', 'The Turnstile site key. Else the one this Portico uses (<code>/embed/config.json</code>).'],
  ['privacy-policy', 'The privacy policy the consent links to. Else this Portico’s <code>PRIVACY_POLICY_URL</code> (<code>/embed/config.json</code>).'],
  ['topic', 'The topic chosen before the visitor chooses: <code>sales</code>, <code>demo</code> or <code>support</code>. Else none (a general inquiry).'],
  ['hide-topic', 'Shows no choice of topic: every inquiry from this form has the <code>topic</code> attribute’s topic, or none.'],
  ['theme', "<code>light</code> (the default), <code>dark</code>, or <code>auto</code> (the visitor's system setting)."],
  ['timeout', 'Seconds to wait for an answer before telling the visitor none came (30 by default).'],
])}
</tbody>
</table>
<h2>Events</h2>
<table>
<thead><tr><th scope="col">Event</th><th scope="col">When, and its <code>detail</code></th></tr></thead>
<tbody>
${rows([
  ['portico:sent', 'The inquiry was accepted. <code>{ pending }</code>: true when it is kept but not delivered yet (the team still gets it).'],
  [
    'portico:error',
    "It was not. <code>{ status, error }</code>: the HTTP status and the API's error code; with no answer, 0 and <code>network</code>, <code>timeout</code> or <code>turnstile_unavailable</code>.",
  ],
])}
</tbody>
</table>
<h2>Look</h2>
<p>Set these custom properties on the element: <code>--portico-accent</code>, <code>--portico-accent-text</code>,
<code>--portico-background</code>, <code>--portico-background-secondary</code>, <code>--portico-text</code>, <code>--portico-text-secondary</code>, <code>--portico-border</code>,
<code>--portico-danger</code>, <code>--portico-danger-background</code>, <code>--portico-success</code>, <code>--portico-success-background</code>, <code>--portico-focus</code>, <code>--portico-font</code>, <code>--portico-radius</code>.
Set light colours for the light theme and dark ones under <code>[theme="dark"]</code>. Borders, the focus ring, text and messages keep their contrast whatever colours you choose.</p>
<h2>Preview</h2>
<p>A live form: what you send here reaches the team.</p>
<label for="preview-locale">Language</label><select id="preview-locale">${LOCALES.map((l) => `<option value="${l}" lang="${l}">${escapeHtml(LANGUAGE_NAMES[l])}</option>`).join('')}</select>
<div class="preview"><portico-contact-form id="preview" locale="es"></portico-contact-form></div>
</main>
</body>
</html>
`;
  const headers = {
    'cache-control': 'no-cache',
    'content-security-policy': csp,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
  };
  return [
    route({
      method: 'GET',
      path: '/embed',
      operationId: 'getEmbedPage',
      summary: 'How to put the contact form on a web page, with a live preview',
      description:
        'An HTML page: the snippet with its integrity value, the CSP lines a site needs, the attributes, events and style properties of <portico-contact-form>, and the form itself in each locale.',
      tags: ['embed'],
      responses: { 200: { description: 'The HTML page.', contentType: 'text/html', schema: z.string() } },
      handler: async () => ({ status: 200, body: page, contentType: 'text/html; charset=utf-8', headers }),
    }),
    assetRoute(styles, 'The style sheet of the embed page'),
    assetRoute(script, 'The script of the embed page'),
  ];
}
