// <portico-contact-form> where a third-party page found rough edges: a server that never answers,
// Cloudflare out of reach, keyboard focus on invalid fields, faint site colours, a locale it does not speak.
import type { Browser, BrowserContext, Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FORM_WORDS } from '../../src/modules/contact-form/form-words.js';
import { freePort, startApp, type TestApp } from '../support/app.js';
import type { TestSmtpServer } from '../support/smtp-server.js';
import { hasChromium, launchChromium, sayWhenSkipped } from './browser-harness.js';
import { startEmbedWorld, TURNSTILE_STAND_IN, visitPage, type EmbedWorld, type Site } from './embed-site.js';
import { contrastOf, FIELDS, focusRings } from './form-contrast.js';

sayWhenSkipped('test/browser/embed.edges.test.ts');

describe.skipIf(!hasChromium)('<portico-contact-form> at its edges', () => {
  let world: EmbedWorld;
  let site: Site;
  let smtp: TestSmtpServer;
  let portico: TestApp;
  let withPolicy: TestApp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    world = await startEmbedWorld();
    ({ site, smtp } = world);
    const env = world.env;
    portico = await startApp(env, { port: await freePort() });
    withPolicy = await startApp({ ...env, PRIVACY_POLICY_URL: 'https://www.portico.example/privacy' }, { port: await freePort() });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await portico?.close();
    await withPolicy?.close();
    await world?.close();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  const visit = async (options: Parameters<Site['page']>[0]) => {
    const visited = await visitPage(browser, site.page(options));
    contexts.push(visited.context);
    return visited;
  };
  let visits = 0;
  const fill = async (form: Locator) => {
    await form.locator('#name').fill('Ana García');
    await form.locator('#email').fill('ana@example.com');
    await form.locator('#message').fill(`A demo for 40 buildings, please. Edge ${++visits}.`);
    await form.locator('#privacy').check();
  };
  const text = (form: Locator, selector: string) => form.locator(selector).innerText();

  it('says no answer came when the server stays silent past the deadline, and the same form sent again delivers one e-mail', async () => {
    const before = smtp.accepted.length;
    const { page, form, events } = await visit({ portico: portico.url, lang: 'ca', attributes: { timeout: '2' } });
    const keys: string[] = [];
    await page.route(`${portico.url}/api/contact`, async (route) => {
      keys.push(route.request().headers()['idempotency-key']!);
      // The first time Portico stores and delivers, then its answer never comes.
      if (keys.length === 1) return void (await route.fetch());
      return route.continue();
    });
    await fill(form);
    await form.locator('#send').click();
    await expect.poll(() => text(form, '#alert'), { timeout: 5_000 }).toBe(FORM_WORDS.ca.noAnswer);
    expect(await form.locator('#send').isEnabled()).toBe(true);
    expect(events).toEqual([{ type: 'portico:error', detail: { status: 0, error: 'timeout' } }]);
    await form.locator('#send').click();
    await expect.poll(() => text(form, '#done')).toBe(FORM_WORDS.ca.success);
    expect(keys).toEqual([keys[0], keys[0]]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.accepted.length).toBe(before + 1);
  });

  it('says the human check could not load before the visitor types, and loads it again on the next Send', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    contexts.push(context);
    let loads = 0;
    // Cloudflare is out of reach the first time the element asks for its script.
    await context.route('https://challenges.cloudflare.com/**', (route) =>
      ++loads === 1 ? route.abort('internetdisconnected') : route.fulfill({ status: 200, contentType: 'text/javascript', body: TURNSTILE_STAND_IN }),
    );
    const page = await context.newPage();
    const events: unknown[] = [];
    await page.exposeFunction('recordEvent', (_type: string, detail: unknown) => events.push(detail));
    await page.addInitScript(`document.addEventListener('portico:error', (event) => window.recordEvent(event.type, event.detail));`);
    await page.goto(site.page({ portico: portico.url, lang: 'es', turnstile: 'load' }));
    const form = page.locator('portico-contact-form');
    await expect.poll(() => text(form, '#alert')).toBe(FORM_WORDS.es.humanCheckUnavailable);
    expect(events).toEqual([{ status: 0, error: 'turnstile_unavailable' }]);

    await fill(form);
    await form.locator('#send').click();
    await expect.poll(() => loads).toBe(2);
    await expect.poll(() => form.locator('[slot=turnstile]').innerText()).toContain('Human check');
    await form.locator('#send').click();
    await expect.poll(() => text(form, '#done')).toBe(FORM_WORDS.es.success);
  });

  for (const theme of ['light', 'dark']) {
    it(`shows the focus ring on every invalid field, at 3:1, in the ${theme} theme`, async () => {
      const { page, form } = await visit({ portico: portico.url, attributes: { theme } });
      await form.locator('#send').focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => text(form, '#alert')).toBe(FORM_WORDS.en.summary);
      const rings = await focusRings(page, form);
      expect(Object.keys(rings)).toEqual(FIELDS);
      for (const [field, ring] of Object.entries(rings)) {
        expect(ring.style, field).toBe('solid');
        expect(ring.color, `${field} shows the focus ring, not the invalid mark`).toBe(ring.focusColor);
        expect(ring.contrast, field).toBeGreaterThanOrEqual(3);
      }
    });
  }

  it('raises faint site colours to their WCAG ratios: the intro text and the button text to 4.5:1, the focus ring to 3:1', async () => {
    const faint = 'portico-contact-form{--portico-text-secondary:#e8e8e8;--portico-accent:#f4f4f4;--portico-accent-text:#fff;--portico-focus:#f9f9f9}';
    const { form } = await visit({ portico: portico.url, style: faint });
    const colours = await contrastOf(form);
    expect(colours.intro).toBeGreaterThanOrEqual(4.5);
    expect(colours.button).toBeGreaterThanOrEqual(4.5);
    expect(colours.focus).toBeGreaterThanOrEqual(3);
  });

  it('links the consent to PRIVACY_POLICY_URL in a new tab, or to the page’s own privacy-policy attribute', async () => {
    const linked = await visit({ portico: withPolicy.url, lang: 'gl' });
    const policy = linked.form.locator('#privacy-policy');
    await expect.poll(() => policy.getAttribute('href')).toBe('https://www.portico.example/privacy');
    expect([await policy.innerText(), await policy.getAttribute('target'), await policy.getAttribute('rel')]).toEqual([FORM_WORDS.gl.privacyPolicy, '_blank', 'noopener noreferrer']);
    const own = await visit({ portico: withPolicy.url, attributes: { 'privacy-policy': 'https://www.site.example/privacidade' } });
    await expect.poll(() => own.form.locator('#privacy-policy').getAttribute('href')).toBe('https://www.site.example/privacidade');
  });

  it('names the policy without a link when Portico has no PRIVACY_POLICY_URL', async () => {
    const { form } = await visit({ portico: portico.url });
    await expect.poll(() => text(form, 'label[for=privacy]')).toBe('I have read and accept the privacy policy.');
    expect(await form.locator('#privacy-policy').count()).toBe(0);
  });

  it('speaks the page’s language when its locale attribute names one it does not speak', async () => {
    const { form } = await visit({ portico: portico.url, lang: 'es', attributes: { locale: 'pt' } });
    await expect.poll(() => text(form, 'h1')).toBe(FORM_WORDS.es.title);
  });
});
