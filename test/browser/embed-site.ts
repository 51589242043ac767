// A product site on a loopback origin of its own for <portico-contact-form>: pages under a strict CSP
// naming Portico, with a stand-in for the Turnstile widget that issues the tokens the loopback siteverify
// server knows, or (`turnstile: 'load'`) with Cloudflare's script for the element to load itself.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { startSiteverify, type TestSiteverify } from '../support/siteverify-server.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

// The widget's part of Turnstile: render() puts a box in the element and hands the page a token, as
// Cloudflare's widget does once the visitor passes. The token is one the loopback siteverify knows:
// `pass-...@<this site's host>` passes; the page's data-turnstile may name another (`fail`, `internal-error`).
export const TURNSTILE_STAND_IN = `(function () {
  var widgets = 0, issuers = {};
  window.turnstile = {
    render: function (element, options) {
      var id = 'widget-' + (++widgets);
      var box = document.createElement('div');
      box.textContent = 'Human check (stand-in)';
      element.appendChild(box);
      issuers[id] = function () {
        var mode = document.documentElement.getAttribute('data-turnstile') || 'pass';
        options.callback(mode === 'pass' || mode === 'load' ? 'pass-' + id + '-' + Date.now() + '@' + location.hostname : mode);
      };
      setTimeout(issuers[id], 0);
      return id;
    },
    reset: function (id) { if (issuers[id]) setTimeout(issuers[id], 0); },
    getResponse: function () { return undefined; }
  };
})();`;

export interface Site {
  origin: string;
  /**
   * A page with the element; `attributes` go on the element, `turnstile` names the stand-in's token (or
   * `load`: no stand-in, Cloudflare's origin in the CSP), `style` is more of the site's CSS.
   */
  page(options: { portico: string; lang?: string; attributes?: Record<string, string>; turnstile?: string; style?: string }): string;
  close(): Promise<void>;
}

/** The product site: its own origin, a strict CSP naming Portico for scripts and requests, nothing inline. */
export async function startSite(): Promise<Site> {
  const pages = new Map<string, string>();
  const policies = new Map<string, string>();
  const styles = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://site.invalid').pathname;
    if (path === '/turnstile.js') return void response.writeHead(200, { 'content-type': 'text/javascript' }).end(TURNSTILE_STAND_IN);
    // The site's own look for the form, through the element's custom properties.
    if (path === '/site.css') return void response.writeHead(200, { 'content-type': 'text/css' }).end('portico-contact-form{--portico-accent:#7a1fa2;--portico-radius:2px}');
    if (styles.has(path)) return void response.writeHead(200, { 'content-type': 'text/css' }).end(styles.get(path));
    const html = pages.get(path);
    if (!html) return void response.writeHead(path === '/favicon.ico' ? 204 : 404).end();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': policies.get(path)! }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    page({ portico, lang = 'en', attributes = {}, turnstile = 'pass', style = '' }) {
      const path = `/page-${pages.size + 1}`;
      styles.set(`${path}.css`, style);
      const standIn = turnstile === 'load' ? '' : '<script src="/turnstile.js"></script>';
      const cloudflare = turnstile === 'load' ? ' https://challenges.cloudflare.com' : '';
      const attrs = Object.entries(attributes)
        .map(([name, value]) => ` ${name}="${value}"`)
        .join('');
      pages.set(
        path,
        `<!doctype html><html lang="${lang}" data-turnstile="${turnstile}"><head><meta charset="utf-8"><title>A product site</title>
<link rel="stylesheet" href="/site.css"><link rel="stylesheet" href="${path}.css">${standIn}<script src="${portico}/embed/contact-form.js" defer></script></head>
<body><main><h1>Property management</h1><portico-contact-form${attrs}></portico-contact-form></main></body></html>`,
      );
      // The lines docs/embed.md asks a site for, and nothing more: no inline script or style.
      policies.set(
        path,
        `default-src 'none'; script-src 'self' ${portico}${cloudflare}; connect-src ${portico}; frame-src${cloudflare || " 'none'"}; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'`,
      );
      return `${origin}${path}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface Visit {
  context: BrowserContext;
  page: Page;
  form: Locator;
  /** Script errors and CSP refusals on the page. */
  problems: string[];
  /** The element's events, as the site's analytics hears them on the document. */
  events: { type: string; detail: unknown }[];
}

/** Opens `url` in a new context and waits for the form; `bypassCSP` only for a test's own tooling (axe-core). */
export async function visitPage(browser: Browser, url: string, { browserLocale = 'de-DE', bypassCSP = false } = {}): Promise<Visit> {
  const context = await browser.newContext({ locale: browserLocale, bypassCSP });
  const page = await context.newPage();
  const problems: string[] = [];
  const events: Visit['events'] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  await page.exposeFunction('recordEvent', (type: string, detail: unknown) => events.push({ type, detail }));
  await page.addInitScript(`for (const type of ['portico:sent', 'portico:error']) document.addEventListener(type, (event) => window.recordEvent(type, event.detail));`);
  await page.goto(url);
  const form = page.locator('portico-contact-form');
  await form.locator('#send').waitFor();
  return { context, page, form, problems, events };
}

/** The site, the loopback siteverify and SMTP servers it needs, and the settings of a Portico that serves it. */
export interface EmbedWorld {
  site: Site;
  siteverify: TestSiteverify;
  smtp: TestSmtpServer;
  /** CONTACT_ALLOWED_ORIGINS naming the site, Turnstile checked by the loopback siteverify, mail to the SMTP server, no rate limits. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startEmbedWorld(): Promise<EmbedWorld> {
  const [site, siteverify, smtp] = await Promise.all([startSite(), startSiteverify(), startSmtpServer()]);
  return {
    site,
    siteverify,
    smtp,
    env: {
      CONTACT_ALLOWED_ORIGINS: site.origin,
      TURNSTILE_SECRET_KEY: siteverify.secret,
      TURNSTILE_SITE_KEY: 'site-key',
      TURNSTILE_VERIFY_URL: siteverify.url,
      SMTP_URL: smtp.url,
      RATE_LIMITS: 'off',
    },
    close: async () => {
      await smtp.close();
      await siteverify.close();
      await site.close();
    },
  };
}
