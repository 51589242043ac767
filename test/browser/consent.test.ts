// The OAuth consent page (D7) as a person meets it in Chromium: words, Allow and Deny, replay, framing, keyboard.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WORDS } from '../../src/modules/oauth/consent-i18n.js';
import { freePort, startApp, type TestApp } from '../support/app.js';
import { authorizeUrl, exchangeCode, hasChromium, launchChromium, newState, pkce, registerClient, sayWhenSkipped, startClientSite, type ClientSite, type RegisteredClient } from './browser-harness.js';

sayWhenSkipped('test/browser/consent.test.ts');

const SCOPES = ['contact:write', 'docs:read'] as const;
const CLIENT_NAME = 'Acme <Residents> & Co';

describe.skipIf(!hasChromium)('the OAuth consent page in Chromium', () => {
  let api: TestApp;
  let site: ClientSite;
  let client: RegisteredClient;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    // The issuer (PUBLIC_URL) must be the origin the browser sees: the decision checks Origin against it.
    api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
    site = await startClientSite();
    client = await registerClient(api, CLIENT_NAME, site.redirectUri);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await api?.close();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  /** A new browser profile whose preferred language is `locale` (navigator.language and Accept-Language). */
  async function openPage(locale: string): Promise<Page> {
    const context = await browser.newContext({ locale, viewport: { width: 800, height: 700 } });
    contexts.push(context);
    return context.newPage();
  }

  /** Opens the consent page for a new authorization request. */
  async function startAuthorization(page: Page, options: { uiLocales?: string } = {}) {
    const { verifier, challenge } = pkce();
    const state = newState();
    const url = authorizeUrl(api, { client, redirectUri: site.redirectUri, scope: SCOPES.join(' '), state, challenge, ...options });
    const response = await page.goto(url);
    return { verifier, state, response: response! };
  }

  /** Presses a button (or key) that submits the decision; the answer must be a 303 back to the client. */
  async function submitDecision(page: Page, press: () => Promise<void>): Promise<URLSearchParams> {
    const answered = page.waitForResponse((response) => response.request().method() === 'POST' && response.url() === `${api.url}/oauth/authorize`);
    await press();
    const decision = await answered;
    if (decision.status() !== 303) {
      await page.waitForLoadState();
      const shown = await page.locator('body').innerText();
      expect.fail(`the decision answered ${decision.status()} instead of a 303 to the client; the page says: ${shown.replace(/\s+/g, ' ')}`);
    }
    return landedQuery(page);
  }

  /** The query the client site received on landing, checked against what the browser shows. */
  async function landedQuery(page: Page): Promise<URLSearchParams> {
    await page.waitForURL((url) => url.href.startsWith(site.redirectUri));
    expect(await page.locator('body').innerText()).toBe('done');
    const query = site.received.at(-1)!;
    expect(query.toString()).toBe(new URL(page.url()).searchParams.toString());
    return query;
  }

  /** Title and buttons as a person reads them; the longer sentences from the product's own catalogue. */
  async function expectConsentPage(page: Page, expected: { lang: 'en' | 'ru'; title: string; buttons: [string, string] }) {
    const words = WORDS[expected.lang];
    expect(await page.locator('html').getAttribute('lang')).toBe(expected.lang);
    expect(await page.title()).toBe(expected.title);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(expected.title);
    expect(await page.getByRole('button').allInnerTexts()).toEqual(expected.buttons);
    expect(await page.locator('main strong').first().innerText()).toBe(CLIENT_NAME);
    expect(await page.locator('main').innerText()).toContain(words.returnTo.replace('{host}', new URL(site.redirectUri).host));
    const items = await page.getByRole('listitem').allInnerTexts();
    expect(items).toEqual(SCOPES.map((scope) => `${words.scopes[scope]} ${scope}`));
    expect(items.join(' ')).not.toContain('mcp:invoke');
  }

  async function screenshot(page: Page, locale: string) {
    const path = join(tmpdir(), `portico-consent-${locale}.png`);
    await page.screenshot({ path, fullPage: true });
    console.log(`consent page screenshot (${locale}): ${path}`);
  }

  describe('for a browser that prefers English', () => {
    it('names the client, the redirect host and each scope in English', async () => {
      const page = await openPage('en-US');
      const { response } = await startAuthorization(page);
      expect(response.status()).toBe(200);
      await expectConsentPage(page, { lang: 'en', title: 'Authorize access', buttons: ['Allow', 'Deny'] });
      await screenshot(page, 'en');
    });

    it('sends the visitor who clicks Allow back with a code, the state and the issuer, and the code buys tokens', async () => {
      const page = await openPage('en-US');
      const { verifier, state } = await startAuthorization(page);
      const query = await submitDecision(page, () => page.getByRole('button', { name: WORDS.en.approve }).click());
      expect(query.get('state')).toBe(state);
      expect(query.get('iss')).toBe(api.url);
      expect(query.get('error')).toBeNull();
      const code = query.get('code')!;
      expect(code).toMatch(/^[\w-]{20,}$/);

      const tokens = await exchangeCode(api, client, code, site.redirectUri, verifier);
      expect(tokens.status).toBe(200);
      expect(await tokens.json()).toMatchObject({
        access_token: expect.any(String),
        refresh_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 3600,
        scope: SCOPES.join(' '),
      });
    });

    it('sends the visitor who clicks Deny back with access_denied, the state and the issuer, and no code', async () => {
      const page = await openPage('en-US');
      const { state } = await startAuthorization(page);
      const query = await submitDecision(page, () => page.getByRole('button', { name: WORDS.en.deny }).click());
      expect(query.get('error')).toBe('access_denied');
      expect(query.get('state')).toBe(state);
      expect(query.get('iss')).toBe(api.url);
      expect(query.get('code')).toBeNull();
    });
  });

  describe('when the client asks for Russian with ui_locales, even in an English browser', () => {
    it('names the client, the redirect host and each scope in Russian', async () => {
      const page = await openPage('en-US');
      const { response } = await startAuthorization(page, { uiLocales: 'ru' });
      expect(response.status()).toBe(200);
      await expectConsentPage(page, { lang: 'ru', title: 'Разрешение доступа', buttons: ['Разрешить', 'Отклонить'] });
      await screenshot(page, 'ru');
    });

    it('sends the visitor who clicks Разрешить back with a code that buys tokens', async () => {
      const page = await openPage('en-US');
      const { verifier, state } = await startAuthorization(page, { uiLocales: 'ru' });
      const query = await submitDecision(page, () => page.getByRole('button', { name: WORDS.ru.approve }).click());
      expect(query.get('state')).toBe(state);
      expect(query.get('iss')).toBe(api.url);
      const tokens = await exchangeCode(api, client, query.get('code')!, site.redirectUri, verifier);
      expect(tokens.status).toBe(200);
      expect(await tokens.json()).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer' });
    });

    it('sends the visitor who clicks Отклонить back with access_denied, the state and the issuer', async () => {
      const page = await openPage('en-US');
      const { state } = await startAuthorization(page, { uiLocales: 'ru' });
      const query = await submitDecision(page, () => page.getByRole('button', { name: WORDS.ru.deny }).click());
      expect(query.get('error')).toBe('access_denied');
      expect(query.get('state')).toBe(state);
      expect(query.get('iss')).toBe(api.url);
      expect(query.get('code')).toBeNull();
    });
  });

  describe('a consent page that was already answered', () => {
    it('is fetched anew when the visitor goes Back: the page is no-store and each showing is a new consent', async () => {
      const page = await openPage('en-US');
      await startAuthorization(page);
      const answered = await page.locator('input[name="consent"]').inputValue();
      await submitDecision(page, () => page.getByRole('button', { name: WORDS.en.approve }).click());

      const back = await page.goBack();
      expect(back?.status()).toBe(200);
      expect(await page.title()).toBe(WORDS.en.title);
      expect(await page.locator('input[name="consent"]').inputValue()).not.toBe(answered);
    });

    it('shows "expired or already used" when the page is submitted again after Back with the consent it already answered', async () => {
      const page = await openPage('en-US');
      await startAuthorization(page);
      const answered = await page.locator('input[name="consent"]').inputValue();
      await submitDecision(page, () => page.getByRole('button', { name: WORDS.en.approve }).click());
      const landings = site.received.length;

      // What a page restored from the back/forward cache would send: the same form, the same consent.
      await page.goBack();
      await page.locator('input[name="consent"]').evaluate((input, value) => input.setAttribute('value', value), answered);
      const resubmitted = page.waitForResponse((response) => response.request().method() === 'POST');
      await page.getByRole('button', { name: WORDS.en.approve }).click();
      expect((await resubmitted).status()).toBe(400);
      await page.waitForLoadState();
      expect(page.url()).toBe(`${api.url}/oauth/authorize`);
      expect(await page.title()).toBe(WORDS.en.errorTitle);
      expect(await page.getByRole('alert').innerText()).toBe(WORDS.en.consentUsed);
      expect(site.received.length).toBe(landings);
    });
  });

  describe('framing', () => {
    it('forbids it in the headers: CSP frame-ancestors none and X-Frame-Options DENY', async () => {
      const page = await openPage('en-US');
      const { response } = await startAuthorization(page);
      const headers = response.headers();
      expect(headers['content-security-policy']).toMatch(/(^|;\s*)frame-ancestors 'none'(;|$)/);
      expect(headers['x-frame-options']).toBe('DENY');
    });

    it('is refused by Chromium: a page on another origin that frames it shows no consent form', async () => {
      const page = await openPage('en-US');
      const refusals: string[] = [];
      page.on('console', (message) => refusals.push(message.text()));
      const url = authorizeUrl(api, { client, redirectUri: site.redirectUri, scope: SCOPES.join(' '), state: newState(), challenge: pkce().challenge });
      const framed = page.waitForResponse((response) => response.url() === url);
      await page.goto(site.framing(url));
      expect((await framed).status()).toBe(200);
      await page.waitForLoadState('load');

      const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
      expect(frame).toBeDefined();
      expect(frame!.url()).toMatch(/^chrome-error:/);
      expect(await frame!.locator('form').count()).toBe(0);
      expect(await page.frameLocator('#consent').getByRole('button').count()).toBe(0);
      expect(refusals.join('\n')).toMatch(/frame-ancestors|X-Frame-Options/);
    });
  });

  describe('accessibility', () => {
    it('declares the page language on <html> in each locale', async () => {
      const page = await openPage('en-US');
      await startAuthorization(page);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      await startAuthorization(page, { uiLocales: 'ru' });
      expect(await page.locator('html').getAttribute('lang')).toBe('ru');
    });

    it('lets a keyboard user reach Allow with Tab, then Deny with another Tab', async () => {
      const page = await openPage('en-US');
      await startAuthorization(page);
      await page.keyboard.press('Tab');
      expect(await page.locator(':focus').innerText()).toBe(WORDS.en.approve);
      await page.keyboard.press('Tab');
      expect(await page.locator(':focus').innerText()).toBe(WORDS.en.deny);
    });

    it('approves with Tab then Enter, landing on the client with a code', async () => {
      const page = await openPage('en-US');
      const { verifier, state } = await startAuthorization(page);
      await page.keyboard.press('Tab');
      const query = await submitDecision(page, () => page.keyboard.press('Enter'));
      expect(query.get('state')).toBe(state);
      expect(query.get('code')).toBeTruthy();
      expect((await exchangeCode(api, client, query.get('code')!, site.redirectUri, verifier)).status).toBe(200);
    });
  });
});
