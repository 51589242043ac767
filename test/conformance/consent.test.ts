// The consent step (D7): what the page shows, how it resists framing, CSRF and replay, and its language.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { movableClock, startAuthorizationServer } from './support/authorization-server.js';
import { expectErrorPage } from './support/expectations.js';
import { consentIdOf, OAuthTestClient, type Browser, type RegisteredClient } from './support/oauth-client.js';

describe('the consent page (D7)', () => {
  let api: TestApp;
  let http: OAuthTestClient;
  let web: RegisteredClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    http = new OAuthTestClient(api.url);
    web = await http.registerWebClient({ client_name: 'Acme Sync', scope: 'contact:write docs:read' });
  });
  afterAll(() => api.close());
  const open = async (client: RegisteredClient = web, request = {}, browser: Browser = {}) => {
    const response = await http.openAuthorization(http.authorizationUrl(client, request).url, browser);
    return { response, html: await response.text() };
  };

  // RFC 6749 section 10.2 and D7: the visitor sees who asks, where they return, and each scope.
  it('names the client, the redirect host and each requested scope', async () => {
    const { response, html } = await open(web, { extra: { ui_locales: 'en' } });
    expect(response.status).toBe(200);
    expect(html).toContain('<strong>Acme Sync</strong>');
    expect(html).toContain('app.example');
    expect(html).toContain('Send inquiries to our team');
    expect(html).toMatch(/<code[^>]*>docs:read<\/code>/);
    expect(html).toContain('<form method="post" action="/oauth/authorize">');
  });

  // RFC 6749 section 10.2: the page names the client; its name is escaped (D7).
  it('escapes a client named <script>alert(1)</script>', async () => {
    const evil = await http.registerWebClient({ client_name: '<script>alert(1)</script>' });
    const { html } = await open(evil);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  // RFC 6749 section 10.13 and RFC 9700 section 4.16: clickjacking; the page cannot be framed.
  it("forbids framing with CSP frame-ancestors 'none' and X-Frame-Options DENY", async () => {
    const { response } = await open();
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });

  // RFC 9700 section 4.2: the page's URL never reaches another origin as a Referer; the page is never cached.
  it('sends a referrer policy that keeps its URL on our origin, and Cache-Control: no-store', async () => {
    const { response } = await open();
    expect(['no-referrer', 'same-origin']).toContain(response.headers.get('referrer-policy'));
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  // RFC 6749 section 10.12: the CSRF token is bound to the browser by an HttpOnly, SameSite=Strict cookie.
  it('binds the page to the browser with an HttpOnly, SameSite=Strict cookie', async () => {
    const { response } = await open();
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Path=\//);
  });

  // D7: never auto-approve; a second request by the same browser is asked again.
  it('asks again on every authorization request, even after an approval', async () => {
    await http.authorizeAndConsent(web);
    const browser: Browser = {};
    await open(web, {}, browser);
    const { html } = await open(web, {}, browser);
    expect(consentIdOf(html)).toEqual(expect.any(String));
  });
});

describe('submitting the consent form (RFC 6749 section 10.12, D7)', () => {
  const clock = movableClock();
  let api: TestApp;
  let http: OAuthTestClient;
  let web: RegisteredClient;
  beforeAll(async () => {
    api = await startAuthorizationServer({}, { clock });
    http = new OAuthTestClient(api.url);
    web = await http.registerWebClient();
  });
  afterAll(() => api.close());
  const showPage = async () => {
    const browser: Browser = {};
    const page = await http.openAuthorization(http.authorizationUrl(web).url, browser);
    return { browser, consent: consentIdOf(await page.text()) };
  };

  // RFC 9700 section 4.12: the answer to the POSTed form is 303, so the browser does not re-POST to the client.
  it('redirects an approval with 303 and a code', async () => {
    const { browser, consent } = await showPage();
    const response = await http.submitConsent(consent, 'approve', browser);
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get('location')!).searchParams.get('code')).toEqual(expect.any(String));
  });

  // D7: the CSRF token is single-use.
  it('cannot be submitted twice: the second POST gets the 400 page', async () => {
    const { browser, consent } = await showPage();
    expect((await http.submitConsent(consent, 'approve', browser)).status).toBe(303);
    await expectErrorPage(await http.submitConsent(consent, 'approve', browser), 400);
  });

  it('cannot be submitted without the browser cookie (403), and the attempt spends it', async () => {
    const { browser, consent } = await showPage();
    await expectErrorPage(await http.submitConsent(consent, 'approve', {}), 403);
    await expectErrorPage(await http.submitConsent(consent, 'approve', browser), 400);
  });

  it("cannot be submitted with another browser's cookie (403)", async () => {
    const { consent } = await showPage();
    const other = await showPage();
    await expectErrorPage(await http.submitConsent(consent, 'approve', other.browser), 403);
  });

  // Fetch standard, "append a request Origin header" step 3.1: the page is served with Referrer-Policy: no-referrer,
  // so a browser posts its own form with Origin: null; Sec-Fetch-Site: same-origin says where it came from.
  it('accepts the decision as a browser posts it from the page: Origin null (no-referrer) and Sec-Fetch-Site same-origin', async () => {
    const { browser, consent } = await showPage();
    const response = await http.submitConsent(consent, 'approve', browser, { origin: 'null', 'sec-fetch-site': 'same-origin' });
    expect(response.status, await response.clone().text()).toBe(303);
    expect(new URL(response.headers.get('location')!).searchParams.get('code')).toEqual(expect.any(String));
  });

  // A sandboxed frame on another site also sends Origin: null, but Fetch Metadata marks it cross-site.
  it('refuses Origin null when Sec-Fetch-Site says cross-site (403)', async () => {
    const { browser, consent } = await showPage();
    await expectErrorPage(await http.submitConsent(consent, 'approve', browser, { origin: 'null', 'sec-fetch-site': 'cross-site' }), 403);
  });

  // Fetch Metadata and Origin: a form posted from another site is refused.
  it('refuses a cross-site Origin with 403', async () => {
    const { browser, consent } = await showPage();
    await expectErrorPage(await http.submitConsent(consent, 'approve', browser, { origin: 'https://evil.example' }), 403);
  });

  it('refuses Sec-Fetch-Site: cross-site with 403', async () => {
    const { browser, consent } = await showPage();
    await expectErrorPage(await http.submitConsent(consent, 'approve', browser, { 'sec-fetch-site': 'cross-site' }), 403);
  });

  // D7: anything but an explicit approval is a denial.
  it('treats a submission without a decision as a denial', async () => {
    const { browser, consent } = await showPage();
    const response = await fetch(`${api.url}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: browser.cookie! },
      body: new URLSearchParams({ consent }),
    });
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
  });

  it('refuses an unknown consent id with the 400 page', async () => {
    const { browser } = await showPage();
    await expectErrorPage(await http.submitConsent('D'.repeat(43), 'approve', browser), 400);
  });

  // D7: the CSRF token does not live for ever (this test moves the clock, so it runs last).
  it('refuses a consent page left open for an hour with the 400 page', async () => {
    const { browser, consent } = await showPage();
    clock.advance(3601);
    await expectErrorPage(await http.submitConsent(consent, 'approve', browser), 400);
  });
});

describe('the consent page in the visitor language (D7)', () => {
  let api: TestApp;
  let http: OAuthTestClient;
  let web: RegisteredClient;
  beforeAll(async () => {
    api = await startAuthorizationServer();
    http = new OAuthTestClient(api.url);
    web = await http.registerWebClient({ scope: 'contact:write' });
  });
  afterAll(() => api.close());
  const pageIn = async (options: { uiLocales?: string; acceptLanguage?: string }) => {
    const request = options.uiLocales ? { extra: { ui_locales: options.uiLocales } } : {};
    const response = await http.openAuthorization(http.authorizationUrl(web, request).url, { acceptLanguage: options.acceptLanguage ?? '' });
    return response.text();
  };

  it('is in Spanish by default', async () => {
    const html = await pageIn({});
    expect(html).toContain('<html lang="es">');
    expect(html).toContain('Autorizar acceso');
    expect(html).toContain('Enviar consultas a nuestro equipo');
  });

  // OpenID Connect Core section 3.1.2.1 ui_locales, as RFC 8414 ui_locales_supported announces.
  it('follows ui_locales=en', async () => {
    const html = await pageIn({ uiLocales: 'en' });
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('Authorize access');
  });

  it('takes the first supported tag of ui_locales', async () => {
    expect(await pageIn({ uiLocales: 'fr-FR eu' })).toContain('<html lang="eu">');
  });

  // RFC 9110 section 12.5.4: Accept-Language, by weight.
  it.each([
    ['ru', 'ru', 'Разрешение доступа'],
    ['ca-ES,ca;q=0.9', 'ca', 'Autoritzar l&#39;accés'],
    ['fr;q=1, gl;q=0.8, en;q=0.5', 'gl', 'Autorizar o acceso'],
    ['de, fr', 'es', 'Autorizar acceso'],
  ])('follows Accept-Language: %s', async (acceptLanguage, lang, title) => {
    const html = await pageIn({ acceptLanguage });
    expect(html).toContain(`<html lang="${lang}">`);
    expect(html).toContain(title);
  });

  it('prefers ui_locales over Accept-Language', async () => {
    expect(await pageIn({ uiLocales: 'en', acceptLanguage: 'ru' })).toContain('<html lang="en">');
  });

  it('shows error pages in the visitor language', async () => {
    const { url } = http.authorizationUrl({ ...web, client_id: 'nobody' });
    const html = await expectErrorPage(await http.openAuthorization(url, { acceptLanguage: 'en' }), 400);
    expect(html).toContain('The application is not registered.');
  });
});
