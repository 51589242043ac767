// <portico-contact-form> on a site of another loopback origin, under a strict CSP, with a stand-in for
// the Turnstile widget that issues the tokens the loopback siteverify server knows: a visitor sends in
// each locale, reads every refusal in their language, retries safely, and a site Portico does not
// list is refused. Two files run it: test/browser/embed.test.ts checks every behaviour, the
// locale-dependent ones in one locale (`npm test`); test/long/embed.locales.test.ts the other locales.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCALES, type Locale } from '../../src/modules/common/locales.js';
import { TOPIC_WORDS } from '../../src/modules/common/topics.js';
import { consentTextSha256, consentWords } from '../../src/modules/contact/consent.js';
import { embedScript } from '../../src/modules/contact-form/embed-routes.js';
import { FORM_WORDS } from '../../src/modules/contact-form/form-words.js';
import { freePort, idlePort, startApp, type TestApp } from '../support/app.js';
import type { TestSiteverify } from '../support/siteverify-server.js';
import type { TestSmtpServer } from '../support/smtp-server.js';
import { hasChromium, launchChromium, sayWhenSkipped } from './browser-harness.js';
import { startEmbedWorld, visitPage, type EmbedWorld, type Site } from './embed-site.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Every behaviour, in Russian where a behaviour's words depend on the locale; or the other locales. */
export type EmbedSuitePart = 'everyday' | 'locales';
const SENT_IN = { everyday: ['ru'], locales: LOCALES.filter((locale) => locale !== 'ru') } as const;
const REFUSED_IN = { everyday: ['ru'], locales: ['en', 'ca'] } as const;

export function describeEmbed(part: EmbedSuitePart, file: string): void {
  sayWhenSkipped(file);
  describe.skipIf(!hasChromium)('<portico-contact-form> on a product site', () => {
    let world: EmbedWorld;
    let site: Site;
    let siteverify: TestSiteverify;
    let smtp: TestSmtpServer;
    let portico: TestApp;
    let limited: TestApp;
    let undeliverable: TestApp;
    let stranger: TestApp;
    let browser: Browser;
    const contexts: BrowserContext[] = [];

    beforeAll(async () => {
      world = await startEmbedWorld();
      ({ site, siteverify, smtp } = world);
      const env = world.env;
      portico = await startApp(env, { port: await freePort() });
      limited = await startApp({ ...env, RATE_LIMITS: 'contact=1/h' }, { port: await freePort() });
      undeliverable = await startApp({ ...env, SMTP_URL: `smtp://127.0.0.1:${await idlePort()}` }, { port: await freePort() });
      stranger = await startApp({ ...env, CONTACT_ALLOWED_ORIGINS: 'https://www.portico.example' }, { port: await freePort() });
      browser = await launchChromium();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      for (const server of [portico, limited, undeliverable, stranger]) await server?.close();
      await world?.close();
    });
    afterEach(async () => {
      for (const context of contexts.splice(0)) await context.close();
    });

    /** `bypassCSP` only for a test's own tooling (axe-core is injected as an inline script). */
    async function visit(options: Parameters<Site['page']>[0], browserLocale = 'de-DE', bypassCSP = false) {
      const visited = await visitPage(browser, site.page(options), { browserLocale, bypassCSP });
      contexts.push(visited.context);
      return visited;
    }

    // Each visit writes a message of its own: the same one again within a day would be a duplicate, never delivered.
    let visits = 0;
    const fill = async (form: Locator, values: { name?: string; email?: string; message?: string } = {}) => {
      const message = values.message ?? `A demo for 40 buildings, please. Visit ${++visits}.`;
      await form.locator('#name').fill(values.name ?? 'Ana García');
      await form.locator('#email').fill(values.email ?? 'ana@example.com');
      await form.locator('#message').fill(message);
      await form.locator('#privacy').check();
      return message;
    };
    const send = (form: Locator) => form.locator('#send').click();
    const text = (form: Locator, selector: string) => form.locator(selector).innerText();
    /** The choice of topic as the visitor reads it: its label, and each option's value and words. */
    const topicChoice = async (form: Locator) => ({
      label: await form.locator('#topic-label').textContent(),
      options: await form.locator('#topic option').evaluateAll((options) => options.map((option) => [option.getAttribute('value'), option.textContent])),
    });
    const offered = (locale: Locale) => {
      const t = TOPIC_WORDS[locale];
      return {
        label: t.label,
        options: [
          ['', t.general],
          ['sales', t.names.sales],
          ['demo', t.names.demo],
          ['support', t.names.support],
        ],
      };
    };
    /** The inquiry Portico stored for the message a visit wrote (each visit writes its own). */
    const stored = async (message: string) => (await portico.deps.inquiries.list({ limit: 50 })).find((inquiry) => inquiry.message === message);

    it.each(SENT_IN[part])('sends a demo inquiry in %s, in the page’s language, through Turnstile, with the record of the consent words shown', async (locale) => {
      const before = smtp.accepted.length;
      const { form, problems, events } = await visit({ portico: portico.url, lang: locale });
      await expect.poll(() => text(form, 'h1')).toBe(FORM_WORDS[locale].title);
      expect(await topicChoice(form)).toEqual(offered(locale));
      expect(await form.locator('label[for=privacy]').textContent()).toBe(consentWords(locale));
      const message = await fill(form);
      await form.locator('#topic').selectOption('demo');
      await send(form);
      await expect.poll(() => text(form, '#done')).toBe(FORM_WORDS[locale].success);
      await expect.poll(() => smtp.accepted.length).toBe(before + 1);
      const mail = smtp.accepted.at(-1)!;
      expect(mail.subject).toMatch(new RegExp(`^\\[demo\\] .*\\[${locale}\\]$`));
      expect(mail.headers.get('x-portico-topic')).toBe('demo');
      expect(await stored(message)).toMatchObject({ topic: 'demo', consent: { door: 'form', policyUrl: null, textSha256: consentTextSha256(consentWords(locale)) } });
      expect(siteverify.calls.at(-1)!.response).toMatch(/^pass-/);
      expect(events).toEqual([{ type: 'portico:sent', detail: { pending: false } }]);
      expect(problems).toEqual([]);
    });

    describe.each(REFUSED_IN[part])('refusals, in %s', (locale) => {
      const w = FORM_WORDS[locale];

      it('marks the field a 400 names', async () => {
        const { page, form, events } = await visit({ portico: portico.url, lang: locale });
        // A refusal the page could not foresee: the request is changed on its way to carry a name the server refuses.
        await page.route(`${portico.url}/api/contact`, (route) => route.continue({ postData: JSON.stringify({ ...JSON.parse(route.request().postData()!), name: 'Ana\u0007' }) }));
        await fill(form);
        await send(form);
        await expect.poll(() => text(form, '#name-error')).toBe(w.fieldRejected);
        expect(await text(form, '#alert')).toBe(w.summary);
        expect(events).toEqual([{ type: 'portico:error', detail: { status: 400, error: 'invalid_request' } }]);
      });

      it('asks for the human check again after a 403', async () => {
        const { form } = await visit({ portico: portico.url, lang: locale, turnstile: 'fail' });
        await fill(form);
        await send(form);
        await expect.poll(() => text(form, '#alert')).toBe(w.humanCheckFailed);
      });

      it('says when to come back after a 429', async () => {
        // The one inquiry an hour this address may send is spent (every POST counts).
        await fetch(`${limited.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        const { page, form } = await visit({ portico: limited.url, lang: locale });
        const posts: string[] = [];
        page.on('request', (request) => request.method() === 'POST' && posts.push(request.url()));
        await fill(form);
        await send(form);
        await expect.poll(() => text(form, '#alert')).toMatch(new RegExp(`^${w.rateLimited.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace('{minutes}', '\\d+')}$`));
        // Retry-After is honoured: sending again before it has passed asks nothing of the server.
        await send(form);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(posts).toHaveLength(1);
        expect(await text(form, '#alert')).toMatch(/\d/);
      });

      it('says the message is kept after a 502', async () => {
        const { form, events } = await visit({ portico: undeliverable.url, lang: locale });
        await fill(form);
        await send(form);
        await expect.poll(() => text(form, '#done'), { timeout: 20_000 }).toBe(w.deliveryPending);
        expect(events).toEqual([{ type: 'portico:sent', detail: { pending: true } }]);
      });

      it('says to try again in a few minutes after a 503', async () => {
        const { form } = await visit({ portico: portico.url, lang: locale, turnstile: 'internal-error' });
        await fill(form);
        await send(form);
        await expect.poll(() => text(form, '#alert')).toBe(w.unavailable);
      });
    });

    if (part === 'everyday') {
      it('delivers one e-mail when the first answer was lost and the visitor sends again', async () => {
        const before = smtp.accepted.length;
        const { page, form } = await visit({ portico: portico.url });
        let dropped = 0;
        const keys: string[] = [];
        await page.route(`${portico.url}/api/contact`, async (route) => {
          keys.push(route.request().headers()['idempotency-key']!);
          if (dropped++ === 0) {
            await route.fetch(); // Portico answers, the visitor never sees it
            return route.abort('connectionreset');
          }
          return route.continue();
        });
        await fill(form);
        await send(form);
        await expect.poll(() => text(form, '#alert')).toBe(FORM_WORDS.en.noAnswer);
        await send(form);
        await expect.poll(() => text(form, '#done')).toBe(FORM_WORDS.en.success);
        expect(keys).toHaveLength(2);
        expect(keys[1]).toBe(keys[0]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(smtp.accepted.length).toBe(before + 1);
      });

      it('cannot send from a site Portico does not list in CONTACT_ALLOWED_ORIGINS', async () => {
        const before = smtp.accepted.length;
        const { form, events } = await visit({ portico: stranger.url });
        await fill(form);
        await send(form);
        await expect.poll(() => text(form, '#alert')).toBe(FORM_WORDS.en.noAnswer);
        expect(events).toEqual([{ type: 'portico:error', detail: { status: 0, error: 'network' } }]);
        expect(smtp.accepted.length).toBe(before);
      });

      it('passes axe-core with the form empty, with its errors, and sent', async () => {
        const { page, form } = await visit({ portico: portico.url, lang: 'ca' }, 'de-DE', true);
        const axe = async () => {
          await page.addScriptTag({ content: AXE });
          return page.evaluate(`axe.run(document.querySelector('portico-contact-form'), { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa'] } })
        .then((r) => r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.html + ': ' + n.failureSummary) })))`);
        };
        expect(await axe()).toEqual([]);
        await send(form);
        await expect.poll(() => text(form, '#alert')).toBe(FORM_WORDS.ca.summary);
        expect(await axe()).toEqual([]);
        await fill(form);
        await send(form);
        await expect.poll(() => text(form, '#done')).toBe(FORM_WORDS.ca.success);
        expect(await axe()).toEqual([]);
      });

      it('takes the site’s look from its custom properties, and its theme from its attribute', async () => {
        const { form } = await visit({ portico: portico.url, attributes: { theme: 'dark' } });
        const look = await form.locator('#send').evaluate((button) => {
          const style = button.ownerDocument.defaultView!.getComputedStyle(button);
          return { background: style.backgroundColor, radius: style.borderTopLeftRadius, theme: button.closest('.pf')!.getAttribute('data-theme') };
        });
        expect(look).toEqual({ background: 'rgb(122, 31, 162)', radius: '2px', theme: 'dark' });
      });

      it('speaks its locale attribute over the page’s language, and the browser’s when the page names none of the six', async () => {
        const attribute = await visit({ portico: portico.url, lang: 'en', attributes: { locale: 'eu' } });
        await expect.poll(() => text(attribute.form, 'h1')).toBe(FORM_WORDS.eu.title);
        const browserLanguage = await visit({ portico: portico.url, lang: 'fr' }, 'gl-ES');
        await expect.poll(() => text(browserLanguage.form, 'h1')).toBe(FORM_WORDS.gl.title);
      });

      it('offers the topic in each of the six languages, and the consent words it sends are those it shows', async () => {
        const { form } = await visit({ portico: portico.url });
        for (const locale of LOCALES) {
          await form.evaluate((element, value) => element.setAttribute('locale', value), locale);
          await expect.poll(() => text(form, 'h1')).toBe(FORM_WORDS[locale].title);
          expect(await topicChoice(form), locale).toEqual(offered(locale));
          expect(await form.locator('label[for=privacy]').textContent(), locale).toBe(consentWords(locale));
        }
        // Sent in the language it was left in: the record names the words shown then.
        const last = LOCALES.at(-1)!;
        const message = await fill(form);
        await form.locator('#topic').selectOption('support');
        await send(form);
        await expect.poll(() => text(form, '#done')).toBe(FORM_WORDS[last].success);
        expect(await stored(message)).toMatchObject({ topic: 'support', consent: { textSha256: consentTextSha256(consentWords(last)) } });
      });

      it('presets the topic its topic attribute names, and the visitor may choose another', async () => {
        const { form } = await visit({ portico: portico.url, attributes: { topic: 'support' } });
        expect([await form.locator('#topic').isVisible(), await form.locator('#topic').inputValue()]).toEqual([true, 'support']);
        // The visitor's choice outlasts the element's next renders.
        await form.locator('#topic').selectOption('sales');
        await form.evaluate((element) => element.setAttribute('theme', 'dark'));
        await form.evaluate((element) => element.setAttribute('locale', 'ca'));
        expect(await form.locator('#topic').inputValue()).toBe('sales');
      });

      it('with hide-topic shows no choice, and sends the topic attribute’s topic, or none', async () => {
        for (const [attributes, topic] of [
          [{ 'hide-topic': '', topic: 'sales' }, 'sales'],
          [{ 'hide-topic': '' }, null],
        ] as const) {
          const { form } = await visit({ portico: portico.url, attributes });
          expect(await form.locator('#topic').isHidden()).toBe(true);
          const message = await fill(form);
          await send(form);
          await expect.poll(() => text(form, '#done')).toBe(FORM_WORDS.en.success);
          expect(await stored(message)).toMatchObject({ topic, consent: { door: 'form', textSha256: consentTextSha256(consentWords('en')) } });
        }
      });
    }
  });

  if (part === 'everyday') {
    describe.skipIf(!hasChromium)('the /embed page', () => {
      let portico: TestApp;
      let browser: Browser;
      beforeAll(async () => {
        portico = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
        browser = await launchChromium();
      }, 60_000);
      afterAll(async () => {
        await browser?.close();
        await portico?.close();
      });

      it('shows the snippet with the script’s integrity value and the CSP lines, under its own strict CSP, and previews each locale', async () => {
        const context = await browser.newContext({ locale: 'en-US' });
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('pageerror', (error) => problems.push(error.message));
        page.on('console', (message) => {
          if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
        });
        const response = await page.goto(`${portico.url}/embed`);
        expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
        const { path, integrity } = embedScript();
        expect(await page.locator('#snippet').innerText()).toBe(
          `<script src="${portico.url}${path}" integrity="${integrity}" crossorigin="anonymous" defer></script>\n<portico-contact-form></portico-contact-form>`,
        );
        expect(await page.locator('#csp').innerText()).toBe(`script-src ${portico.url}\nconnect-src ${portico.url}`);
        const preview = page.locator('#preview');
        await expect.poll(() => preview.locator('h1').innerText()).toBe(FORM_WORDS.es.title);
        for (const locale of LOCALES) {
          await page.locator('#preview-locale').selectOption(locale);
          await expect.poll(() => preview.locator('h1').innerText()).toBe(FORM_WORDS[locale].title);
        }
        expect(problems).toEqual([]);
        await context.close();
      });

      it('passes axe-core', async () => {
        const context = await browser.newContext({ locale: 'en-US', bypassCSP: true });
        const page = await context.newPage();
        await page.goto(`${portico.url}/embed`);
        await page.locator('#preview #send').waitFor();
        await page.addScriptTag({ content: AXE });
        const violations = await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa'] } })
      .then((r) => r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.html + ': ' + n.failureSummary) })))`);
        expect(violations).toEqual([]);
        await context.close();
      });
    });
  }
}
