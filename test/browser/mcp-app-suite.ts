// The contact-form MCP App in Chromium, in a host made from the official MCP Apps SDK (ext-apps
// AppBridge, the basic-host example's two-iframe sandbox and CSP header): the resource is read from
// Portico's /mcp, and the app's tool calls go back to /mcp through the host's MCP client. Two files run
// it: test/browser/mcp-app.test.ts checks every behaviour, the locale-dependent ones in one locale (`npm
// test`); test/long/mcp-app.locales.test.ts checks the other locales and writes the review screenshots.
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Frame, FrameLocator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCALES, type Locale } from '../../src/modules/common/locales.js';
import { TOPIC_WORDS } from '../../src/modules/common/topics.js';
import { consentTextSha256, consentWords } from '../../src/modules/contact/consent.js';
import { FORM_WORDS } from '../../src/modules/contact-form/form-words.js';
import { freePort, idlePort, startApp, type TestApp } from '../support/app.js';
import { callContactService } from '../support/mcp-call.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { hasChromium, launchChromium, sayWhenSkipped } from './browser-harness.js';
import { startExtAppsHost, type ExtAppsHost } from './ext-apps-host.js';
import type { OpenAppOptions } from './ext-apps-host/options.js';
import { boundaryRatios, contrastOf, FIELDS, focusRings } from './form-contrast.js';
import { context, PALETTES } from './mcp-app-palettes.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** Screenshots for a reviewer; .gitignore keeps the folder out of git. */
const SHOTS = join(import.meta.dirname, '..', '..', 'test-results', 'mcp-app');

const GOOD = { name: 'Ana Pérez', email: 'ana@example.com', message: 'Hola: quisiera una demo para mi comunidad de 40 viviendas.', locale: 'ca' };
type ToolCall = { name: string; arguments: Record<string, unknown> };
type HostAnswer = { result?: Record<string, unknown>; error?: { code: number; message: string } };
const POLICY = 'https://www.portico.example/privacy';
const DELIVERED = { content: [{ type: 'text', text: 'The inquiry was delivered to the team.' }], structuredContent: { ok: true } };

/** Every behaviour, in Russian where a behaviour's words depend on the locale; or the other locales and the screenshots. */
export type McpAppSuitePart = 'everyday' | 'locales';
const LOCALES_CHECKED = { everyday: ['ru'], locales: ['en', 'ca'] } as const;

export function describeMcpApp(part: McpAppSuitePart, file: string): void {
  sayWhenSkipped(file);
  describe.skipIf(!hasChromium)('the contact-form app in the MCP Apps SDK host', () => {
    let host: ExtAppsHost;
    let browser: Browser;
    let smtp: TestSmtpServer;
    let api: TestApp;
    let undeliverable: TestApp;
    let limited: TestApp;
    /** The answer Portico's tool gives to a message with a vertical tab: refused by the tool's input schema (invalid_request, with the fields at fault). */
    let validationRefusal: Record<string, unknown>;
    const contexts: BrowserContext[] = [];

    beforeAll(async () => {
      host = await startExtAppsHost();
      smtp = await startSmtpServer();
      const hostOrigin = new URL(host.url).origin;
      const env = { MCP_ALLOWED_ORIGINS: hostOrigin, RATE_LIMITS: 'off' };
      api = await startApp({ ...env, SMTP_URL: smtp.url, PRIVACY_POLICY_URL: POLICY }, { port: await freePort() });
      // A relay that refuses connections: the inquiry is kept and retried, the call answers delivery_failed.
      undeliverable = await startApp({ ...env, SMTP_URL: `smtp://127.0.0.1:${await idlePort()}` }, { port: await freePort() });
      limited = await startApp({ ...env, SMTP_URL: smtp.url, RATE_LIMITS: 'contact=1/h' }, { port: await freePort() });
      validationRefusal = (await callContactService(api.url, { ...GOOD, message: 'a\u000bb', privacy: true })) as Record<string, unknown>;
      browser = await launchChromium();
      await mkdir(SHOTS, { recursive: true });
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      for (const server of [api, undeliverable, limited]) await server?.close();
      await smtp?.close();
      await host?.close();
    });
    afterEach(async () => {
      for (const open of contexts.splice(0)) await open.close();
    });

    interface Opened {
      page: Page;
      app: FrameLocator;
      frame: () => Promise<Frame>;
      calls: ToolCall[];
      problems: string[];
    }

    /**
     * Opens the host page in a fresh profile whose language is `browserLocale` (de-DE, none of the six, by
     * default) and has it render the app for the assistant's `toolInput`.
     */
    async function openApp(options: Partial<Omit<OpenAppOptions, 'sandboxUrl'>> & { server?: TestApp; browserLocale?: string; answer?: (call: ToolCall) => HostAnswer }): Promise<Opened> {
      const browserContext = await browser.newContext({ locale: options.browserLocale ?? 'de-DE', viewport: { width: 680, height: 1000 } });
      contexts.push(browserContext);
      const page = await browserContext.newPage();
      const calls: ToolCall[] = [];
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
      });
      await page.exposeFunction('hostCallTool', (params: ToolCall) => {
        calls.push(params);
        return options.answer?.(params) ?? { error: { code: -32603, message: 'no answer' } };
      });
      await page.goto(host.url);
      await page.waitForFunction('typeof window.openApp === "function"');
      const open: OpenAppOptions = {
        mcpUrl: `${(options.server ?? api).url}/mcp`,
        sandboxUrl: host.sandboxUrl,
        hostContext: options.hostContext ?? context('en-US'),
        toolInput: options.toolInput ?? {},
        toolCalls: options.toolCalls ?? true,
        answeredByTest: options.answer !== undefined,
        ...(options.toolResult ? { toolResult: options.toolResult } : {}),
      };
      await page.evaluate((o) => (globalThis as unknown as { openApp(options: OpenAppOptions): Promise<void> }).openApp(o), open);
      const app = page.frameLocator('#app').frameLocator('iframe');
      await app.locator('#send').waitFor({ state: 'attached' });
      const frame = async () => (await page.frameLocator('#app').locator('iframe').elementHandle())!.contentFrame().then((f) => f!);
      return { page, app, frame, calls, problems };
    }

    const text = (app: FrameLocator, selector: string) => app.locator(selector).innerText();
    // Each form sent a message of its own: the same inquiry again within a day would be a duplicate (D20),
    // answered alike and never delivered, whatever the relay did.
    let forms = 0;
    async function fillForm(app: FrameLocator, values: { name: string; email: string; message: string; locale?: string; privacy: boolean }) {
      await app.locator('#name').fill(values.name);
      await app.locator('#email').fill(values.email);
      const message = `${values.message} (${++forms})`;
      await app.locator('#message').fill(message);
      if (values.locale) await app.locator('#locale').selectOption(values.locale);
      await app.locator('#privacy').setChecked(values.privacy);
      return message;
    }
    /** Everything the person can read in the app. */
    const visibleText = (app: FrameLocator) => app.locator('body').innerText();

    /** axe-core's color-contrast and label rules over the app's document: the violations, if any. */
    async function axe(inner: Frame): Promise<{ id: string; nodes: string[] }[]> {
      await inner.addScriptTag({ content: AXE });
      return (await inner.evaluate(`axe.run(document, { runOnly: { type: 'rule', values: ['color-contrast', 'label'] } })
      .then((r) => r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.html + ': ' + n.failureSummary) })))`)) as { id: string; nodes: string[] }[];
    }

    if (part === 'everyday') {
      it('is rendered from the resource /mcp serves, in the sandbox the resource’s CSP describes, and sized by its own report', async () => {
        const { page, app, problems } = await openApp({ hostContext: context('en-US'), toolInput: { name: 'Ana' } });
        await expect.poll(() => app.locator('#name').inputValue()).toBe('Ana');
        const info = await page.evaluate('({ version: window.bridge.getAppVersion(), capabilities: window.bridge.getAppCapabilities() })');
        expect(info).toEqual({ version: { name: 'portico-contact-form', version: '1.0.0' }, capabilities: { availableDisplayModes: ['inline'] } });
        // `_meta.ui.csp` lists no domain: the sandbox may connect to nothing but itself.
        expect(host.policies.at(-1)).toContain("connect-src 'self';");
        await expect.poll(() => page.locator('#app').evaluate((el) => el.getBoundingClientRect().height)).toBeGreaterThan(400);
        expect(problems).toEqual([]);
      });

      it('sends through /mcp with the name and e-mail trimmed, and Portico relays the inquiry', async () => {
        const { app, problems } = await openApp({ hostContext: context('en-US') });
        await fillForm(app, { ...GOOD, name: '  Ana Pérez  ', email: ' ana@example.com ', privacy: true });
        await app.locator('#send').click();
        await expect.poll(() => text(app, '#done')).toBe(FORM_WORDS.en.success);
        await expect.poll(() => smtp.accepted.length).toBeGreaterThan(0);
        const mail = smtp.accepted.at(-1)!;
        expect(mail.replyTo?.value).toEqual([{ name: 'Ana Pérez', address: 'ana@example.com' }]);
        expect(mail.text).toContain(GOOD.message);
        expect(problems).toEqual([]);
      });
    }

    describe.each(LOCALES_CHECKED[part])('in %s', (locale) => {
      const w = FORM_WORDS[locale];

      it('outlines every invalid field, the text inputs included, and names each fault', async () => {
        const { page, app, calls } = await openApp({ hostContext: context(locale), answer: () => ({}) });
        await app.locator('#send').click();
        await expect.poll(() => text(app, '#alert')).toBe(w.summary);
        expect(await text(app, '#name-error')).toBe(w.nameRequired);
        expect(await text(app, '#email-error')).toBe(w.emailRequired);
        expect(await text(app, '#message-error')).toBe(w.messageRequired);
        expect(await text(app, '#privacy-error')).toBe(w.privacyRequired);
        const valid = await app.locator('#locale').evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).borderTopColor);
        for (const id of ['name', 'email', 'message']) {
          const border = await app.locator(`#${id}`).evaluate((el) => {
            const style = el.ownerDocument.defaultView!.getComputedStyle(el);
            return { width: style.borderTopWidth, color: style.borderTopColor };
          });
          expect(border.width, id).toBe('2px');
          expect(border.color, id).not.toBe(valid);
        }
        expect(calls).toEqual([]);
        await page.screenshot({ path: join(SHOTS, `errors-${locale}.png`), fullPage: true });
      });

      it('refuses a message with a control character in the page, in its language', async () => {
        const { app, calls } = await openApp({ hostContext: context(locale), answer: () => ({}) });
        await fillForm(app, { ...GOOD, message: 'a\u000bb', privacy: true });
        await app.locator('#send').click();
        await expect.poll(() => text(app, '#message-error')).toBe(w.messageControl);
        expect(calls).toEqual([]);
      });

      it('marks the field the server’s validation refused, never showing its English text', async () => {
        const { app, calls } = await openApp({ hostContext: context(locale), answer: () => ({ result: validationRefusal }) });
        await fillForm(app, { ...GOOD, privacy: true });
        await app.locator('#send').click();
        await expect.poll(() => text(app, '#message-error')).toBe(w.fieldRejected);
        expect(await text(app, '#alert')).toBe(w.summary);
        expect(await app.locator('#message').getAttribute('aria-invalid')).toBe('true');
        expect(calls).toHaveLength(1);
        expect(await visibleText(app)).not.toMatch(/validation|Invalid arguments|control characters/i);
      });

      it('says when to try again once the contact quota is spent (the tool’s 429)', async () => {
        // The quota of this address (the browser and the test share 127.0.0.1) is spent before the app calls.
        await callContactService(limited.url, { ...GOOD, privacy: true });
        const { app } = await openApp({ server: limited, hostContext: context(locale) });
        await fillForm(app, { ...GOOD, privacy: true });
        await app.locator('#send').click();
        await expect.poll(() => text(app, '#alert')).toMatch(new RegExp(`^${w.rateLimited.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace('{minutes}', '\\d+')}$`));
        expect(await visibleText(app)).not.toMatch(/inquiries every|retry in/);
        expect(await app.locator('#form').isVisible()).toBe(true);
      });

      it('says to try again in a few minutes when the node is busy (the tool’s server_busy)', async () => {
        const busy = {
          content: [{ type: 'text', text: 'The inquiry was not sent: this node is working on as many inquiries as it takes at once.' }],
          structuredContent: { ok: false, error: 'server_busy', retryAfterSeconds: 2 },
          isError: true,
        };
        const { app } = await openApp({ hostContext: context(locale), answer: () => ({ result: busy }) });
        await fillForm(app, { ...GOOD, privacy: true });
        await app.locator('#send').click();
        await expect.poll(() => text(app, '#alert')).toBe(w.unavailable);
        expect(await app.locator('#form').isVisible()).toBe(true);
      });

      it('says the message is kept when the relay cannot take it, and does not ask for it again', async () => {
        const { app } = await openApp({ server: undeliverable, hostContext: context(locale) });
        await fillForm(app, { ...GOOD, privacy: true });
        await app.locator('#send').click();
        await expect.poll(() => text(app, '#done'), { timeout: 20_000 }).toBe(w.deliveryPending);
        expect(await app.locator('#form').isHidden()).toBe(true);
        expect(await visibleText(app)).not.toMatch(/received and stored|delivery_failed/);
      });

      it('shows a failure in its language when the call ends in an error it did not foresee', async () => {
        const { app } = await openApp({ hostContext: context(locale), answer: () => ({ error: { code: -32603, message: 'Internal error: upstream exploded' } }) });
        await fillForm(app, { ...GOOD, privacy: true });
        await app.locator('#send').click();
        await expect.poll(() => text(app, '#alert')).toBe(w.failure);
        expect(await app.locator('#send').isEnabled()).toBe(true);
      });

      it('tells the person what to do when the host offers no tool calls, and calls nothing', async () => {
        const { page, app, calls } = await openApp({ hostContext: context(locale), toolCalls: false });
        await fillForm(app, { ...GOOD, privacy: true });
        await app.locator('#send').click();
        await expect.poll(() => text(app, '#alert')).toBe(w.noToolCalls);
        expect(calls).toEqual([]);
        await page.screenshot({ path: join(SHOTS, `no-tool-calls-${locale}.png`), fullPage: true });
      });

      it('trims the name and the e-mail before it sends them', async () => {
        const { app, calls } = await openApp({ hostContext: context(locale), answer: () => ({ result: DELIVERED }) });
        await fillForm(app, { ...GOOD, name: '  Test  ', email: ' test@example.com ', privacy: true });
        await app.locator('#send').click();
        await expect.poll(() => text(app, '#done')).toBe(w.success);
        expect(calls[0]!.arguments).toMatchObject({ name: 'Test', email: 'test@example.com' });
      });

      it('presets the topic the tool input names, offers the choice in the host’s language, and Portico keeps it with the consent words shown', async () => {
        const { app } = await openApp({ hostContext: context(locale), toolInput: { topic: 'support' } });
        const t = TOPIC_WORDS[locale];
        await expect.poll(() => app.locator('#topic').inputValue()).toBe('support');
        expect(await app.locator('#topic-label').textContent()).toBe(t.label);
        expect(await app.locator('#topic option').allTextContents()).toEqual([t.general, t.names.sales, t.names.demo, t.names.support]);
        expect(await app.locator('label[for=privacy]').textContent()).toBe(consentWords(locale));
        const message = await fillForm(app, { ...GOOD, privacy: true });
        await app.locator('#send').click();
        await expect.poll(() => text(app, '#done')).toBe(w.success);
        const inquiry = (await api.deps.inquiries.list({ limit: 50 })).find((stored) => stored.message === message);
        // The reply's language is the person's choice (ca); the words they accepted are the ones shown, in the host's.
        expect(inquiry).toMatchObject({ topic: 'support', locale: GOOD.locale, consent: { door: 'app', policyUrl: POLICY, textSha256: consentTextSha256(consentWords(locale)) } });
      });

      it('speaks the browser’s language when the host names none', async () => {
        const { app } = await openApp({ hostContext: { theme: 'light' }, browserLocale: `${locale}-ES` });
        await expect.poll(() => text(app, 'h1')).toBe(w.title);
        expect(await app.locator('#locale').inputValue()).toBe(locale);
      });

      for (const theme of ['light', 'dark'] as const) {
        it(`keeps control boundaries at 3:1, shows the focus ring on invalid fields, and passes axe-core's color-contrast and label rules in the ${theme} theme`, async () => {
          const { page, app, frame } = await openApp({ hostContext: context(locale, theme), answer: () => ({ result: DELIVERED }) });
          await app.locator('#send').focus();
          await page.keyboard.press('Enter');
          await expect.poll(() => text(app, '#alert')).toBe(w.summary);
          for (const [id, ratio] of Object.entries(await boundaryRatios(app.locator('#portico-form')))) expect(ratio, id).toBeGreaterThanOrEqual(3);
          // WCAG 2.4.7: each invalid field shows the focus ring, not its invalid mark, while it has focus.
          const rings = await focusRings(page, app.locator('#portico-form'));
          expect(Object.keys(rings)).toEqual(FIELDS);
          for (const [id, ring] of Object.entries(rings)) {
            expect([ring.style, ring.color, ring.contrast >= 3], id).toEqual(['solid', ring.focusColor, true]);
          }
          expect(await axe(await frame())).toEqual([]);
          await fillForm(app, { ...GOOD, privacy: true });
          await app.locator('#send').click();
          await expect.poll(() => text(app, '#done')).toBe(w.success);
          expect(await axe(await frame())).toEqual([]);
        });
      }
    });

    if (part === 'everyday') {
      it('links the consent to PRIVACY_POLICY_URL and opens it through the host; without the setting, names the policy unlinked', async () => {
        const { page, app } = await openApp({ hostContext: context('en-GB') });
        await expect.poll(() => app.locator('#privacy-policy').getAttribute('href')).toBe(POLICY);
        await app.locator('#privacy-policy').click();
        await expect.poll(() => page.evaluate('window.openedLinks')).toEqual([POLICY]);
        expect(await app.locator('#privacy').isChecked()).toBe(false);
        const unlinked = await openApp({ server: limited, hostContext: context('en-GB') });
        await expect.poll(() => text(unlinked.app, 'label[for=privacy]')).toBe('I have read and accept the privacy policy.');
        expect(await unlinked.app.locator('#privacy-policy').count()).toBe(0);
      });

      it('speaks English when neither the host nor the browser names one of the six', async () => {
        const { app } = await openApp({ hostContext: { theme: 'light' }, browserLocale: 'de-DE' });
        await expect.poll(() => text(app, 'h1')).toBe(FORM_WORDS.en.title);
      });

      it('prefers the host’s locale, then the tool input’s, to the browser’s', async () => {
        const { app } = await openApp({ hostContext: { locale: 'de' }, toolInput: { locale: 'ca' }, browserLocale: 'ru-RU' });
        await expect.poll(() => text(app, 'h1')).toBe(FORM_WORDS.ca.title);
      });

      it('switches language and theme when the host’s context changes', async () => {
        const { page, app } = await openApp({ hostContext: context('en-GB') });
        await expect.poll(() => text(app, '#send')).toBe(FORM_WORDS.en.send);
        await page.evaluate(`window.bridge.setHostContext(${JSON.stringify(context('eu-ES', 'dark'))})`);
        await expect.poll(() => text(app, 'h1')).toBe(FORM_WORDS.eu.title);
        expect(await app.locator('#topic-label').textContent()).toBe(TOPIC_WORDS.eu.label);
        expect(await app.locator('html').getAttribute('data-theme')).toBe('dark');
      });

      it('pre-fills from the tool input and leaves consent to the person', async () => {
        const { app } = await openApp({ hostContext: context('es-ES'), toolInput: { ...GOOD, privacy: true } });
        await expect.poll(() => app.locator('#name').inputValue()).toBe(GOOD.name);
        expect(await app.locator('#email').inputValue()).toBe(GOOD.email);
        expect(await app.locator('#locale').inputValue()).toBe('ca');
        expect(await app.locator('#privacy').isChecked()).toBe(false);
      });

      it('counts lengths in code points: 120 astral letters make a valid name, 121 do not', async () => {
        const { app, calls } = await openApp({ hostContext: context('en'), answer: () => ({ result: DELIVERED }) });
        await fillForm(app, { name: '𝒜'.repeat(121), email: 'ana@example.com', message: 'Hi', privacy: true });
        await app.locator('#send').click();
        await expect.poll(() => text(app, '#name-error')).toBe('At most 120 characters (121 now).');
        await app.locator('#name').fill('𝒜'.repeat(120));
        await app.locator('#send').click();
        await expect.poll(() => calls.length).toBe(1);
        expect(calls[0]!.arguments.name).toBe('𝒜'.repeat(120));
      });

      it('shows success at once when the call that opened it already succeeded', async () => {
        const result = { content: [{ type: 'text', text: 'The inquiry was delivered.' }], structuredContent: { ok: true } };
        const { app, calls } = await openApp({ hostContext: context('en'), toolInput: { ...GOOD, privacy: true }, toolResult: result, answer: () => ({}) });
        await expect.poll(() => text(app, '#done')).toBe(FORM_WORDS.en.success);
        expect(calls).toEqual([]);
      });

      it('finds a boundary colour, and raises the intro text and the focus ring, when the host’s colours match its background', async () => {
        const washedOut = { ...PALETTES.light, '--color-border-primary': '#ffffff', '--color-text-secondary': '#fafafa', '--color-text-danger': '#fff0f0', '--color-ring-primary': '#fdfdfd' };
        const { app } = await openApp({ hostContext: context('en', 'light', washedOut) });
        await app.locator('#send').click();
        await expect.poll(() => text(app, '#alert')).not.toBe('');
        const colours = await app.locator('#locale').evaluate((el) => {
          const style = (e: typeof el) => e.ownerDocument.defaultView!.getComputedStyle(e);
          return { border: style(el).borderTopColor, invalid: style(el.ownerDocument.getElementById('name')!).borderTopColor };
        });
        expect(colours.border).toBe('rgb(17, 24, 39)');
        expect(colours.invalid).not.toBe('rgb(255, 240, 240)');
        const raised = await contrastOf(app.locator('#portico-form'));
        expect([raised.intro >= 4.5, raised.button >= 4.5, raised.focus >= 3]).toEqual([true, true, true]);
      });
    }

    if (part === 'locales') {
      it('writes a screenshot of each locale in light and dark for review', async () => {
        for (const theme of ['light', 'dark'] as const) {
          for (const locale of LOCALES) {
            const { page, app } = await openApp({ hostContext: context(locale as Locale, theme), toolInput: { name: 'Ana Pérez', email: 'ana@example.com' } });
            await expect.poll(() => text(app, 'h1')).toBe(FORM_WORDS[locale].title);
            await page.screenshot({ path: join(SHOTS, `${locale}-${theme}.png`), fullPage: true });
            await page.context().close();
            contexts.splice(contexts.indexOf(page.context()), 1);
          }
        }
      }, 60_000);
    }
  });
}
