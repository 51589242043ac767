// The consent and error pages: self-contained HTML, escaped, unframeable, with a strict CSP (D7).
import { escapeHtml } from '../common/html.js';
import type { Locale } from '../common/locales.js';
import type { PageWords } from './consent-i18n.js';
import type { Scope } from './scopes.js';

export interface HtmlPage {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/**
 * A translation with its placeholder filled. A replacer function, never a replacement string: in one,
 * `$&`, `` $` `` and `$'` would splice other parts of the sentence into a client's name or host.
 */
const fill = (template: string, placeholder: string, html: string) => template.replace(placeholder, () => html);

const STYLE = `
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f4f6f8}
main{max-width:32rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.12)}
h1{font-size:1.5rem;margin:0 0 1rem}ul{padding-left:1.25rem}li{margin:.25rem 0}
.scope{margin-left:.4rem;padding:.05rem .35rem;border-radius:4px;background:#eef1f4;color:#4a5560;font-size:.85em}
.note{color:#4a5560;font-size:.95rem}
.identity{margin:0 0 1rem;padding:.6rem .8rem;border-left:4px solid #0b5cad;background:#eef4fb}.identity strong{font-size:1.15em}
.warning{padding:.6rem .8rem;border-left:4px solid #b54708;background:#fff4e5;color:#5c2a00}.actions{display:flex;gap:.75rem;margin-top:1.5rem}
button{flex:1;font:inherit;padding:.7rem 1rem;border-radius:8px;border:2px solid #0b5cad;cursor:pointer}
button.approve{background:#0b5cad;color:#fff}button.deny{background:#fff;color:#0b5cad}
button:focus-visible{outline:3px solid #f5a623;outline-offset:2px}`;

function page(locale: Locale, title: string, content: string, nonce: string): string {
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>
`;
}

function securityHeaders(nonce: string, formAction: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    // No window of another origin keeps a handle on this one (XS-Leaks, tabnabbing). A client that opens
    // the page in a popup learns the outcome at its redirect URI, not through window.opener.
    'cross-origin-opener-policy': 'same-origin',
    'x-content-type-options': 'nosniff',
    // same-origin, not no-referrer: under no-referrer browsers send `Origin: null` on the form post,
    // which the cross-site check must refuse; cross-origin requests (the redirect) still carry none.
    'referrer-policy': 'same-origin',
  };
}

export interface ConsentView {
  locale: Locale;
  words: PageWords;
  clientName: string | null;
  /** D13: the host of the client's metadata document, for clients identified by one. */
  documentHost?: string;
  /** Every redirect URI of a documented client is loopback (shown only with documentHost). */
  loopbackOnly?: boolean;
  redirectHost: string;
  scopes: readonly Scope[];
  consentId: string;
  /** CSP form-action sources: ourselves and where the decision redirects (browsers check redirects too). */
  formAction: string;
  nonce: string;
}

/**
 * The consent page: the client (its document's host first, for a documented one), the scopes and where it
 * returns to, every value escaped; its form posts the decision to /oauth/authorize.
 */
export function consentPage(view: ConsentView): HtmlPage {
  const { words } = view;
  const client = `<strong>${escapeHtml(view.clientName ?? words.unnamed)}</strong>`;
  const host = (text: string) => fill(escapeHtml(text), '{host}', `<strong>${escapeHtml(view.documentHost ?? '')}</strong>`);
  // The document's host is who the visitor trusts (the name is only what the document says): it comes first.
  const identity = view.documentHost === undefined ? '' : `<p class="identity">${host(words.identifiedBy)}</p>\n`;
  const loopback = view.documentHost !== undefined && view.loopbackOnly ? `<p class="warning" role="note">${host(words.loopbackOnly)}</p>\n` : '';
  const content = `<h1>${escapeHtml(words.title)}</h1>
${identity}<p>${fill(escapeHtml(words.intro), '{client}', client)}</p>
<ul>
${view.scopes.map((scope) => `<li>${escapeHtml(words.scopes[scope])} <code class="scope">${escapeHtml(scope)}</code></li>`).join('\n')}
</ul>
<p class="note">${fill(escapeHtml(words.returnTo), '{host}', `<strong>${escapeHtml(view.redirectHost)}</strong>`)}</p>
${loopback}<p class="note">${escapeHtml(words.trust)}</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="consent" value="${escapeHtml(view.consentId)}">
<input type="hidden" name="locale" value="${view.locale}">
<div class="actions">
<button type="submit" class="approve" name="decision" value="approve">${escapeHtml(words.approve)}</button>
<button type="submit" class="deny" name="decision" value="deny">${escapeHtml(words.deny)}</button>
</div>
</form>`;
  return { status: 200, body: page(view.locale, words.title, content, view.nonce), headers: securityHeaders(view.nonce, view.formAction) };
}

/** `detail`: the technical reason, in English, for the developer of the client. */
export function errorPage(status: number, locale: Locale, words: PageWords, message: string, nonce: string, detail?: string): HtmlPage {
  const technical = detail === undefined ? '' : `\n<p class="note" lang="en"><code>${escapeHtml(detail)}</code></p>`;
  const content = `<h1>${escapeHtml(words.errorTitle)}</h1>\n<p role="alert">${escapeHtml(message)}</p>${technical}`;
  return { status, body: page(locale, words.errorTitle, content, nonce), headers: securityHeaders(nonce, "'none'") };
}
