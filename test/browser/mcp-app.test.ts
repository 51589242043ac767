// The contact-form MCP App in Chromium, framed by a test host that speaks the host side of MCP Apps (SEP-1865).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { contactFormHtml } from '../../src/modules/mcp/ui/contact-form-html.js';
import { FORM_WORDS } from '../../src/modules/mcp/ui/contact-form-i18n.js';
import { CHROMIUM, hasChromium, launchChromium } from './browser-harness.js';
import { startAppHost, type AppHost, type HostScenario } from './mcp-app-host.js';

if (!hasChromium) {
  console.warn(`SKIPPED test/browser/mcp-app.test.ts: ${CHROMIUM} is missing. Install Debian's chromium (as .ci/run does) to run the browser tests.`);
}

interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}
/** What the host answers a `tools/call` with: a JSON-RPC result (a CallToolResult) or a JSON-RPC error. */
type HostAnswer = { result: Record<string, unknown> } | { error: { code: number; message: string } };
interface JsonRpc {
  jsonrpc: string;
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
}

const DELIVERED: HostAnswer = {
  result: { content: [{ type: 'text', text: 'The inquiry from Ana Pérez was delivered to the team.' }], structuredContent: { ok: true }, isError: false },
};
const NOT_SENT_TEXT = 'The inquiry was not sent: the team inbox is unavailable (mail_failed).';
const NOT_SENT: HostAnswer = {
  result: { content: [{ type: 'text', text: NOT_SENT_TEXT }], structuredContent: { ok: false, error: 'mail_failed' }, isError: true },
};
const GOOD = { name: 'Ana Pérez', email: 'ana@example.com', message: 'Hola: quisiera una demo para mi comunidad de 40 viviendas.', locale: 'ca' };

const shot = (name: string) => join(tmpdir(), `portico-mcp-app-${name}.png`);

describe.skipIf(!hasChromium)('the contact-form MCP App in Chromium', () => {
  const html = contactFormHtml();
  let host: AppHost;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    host = await startAppHost();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  /** Opens a host page for `scenario` in a fresh profile whose own language (de-DE) is none of the six. */
  async function openApp(scenario: HostScenario, answer: (call: ToolCall) => HostAnswer = () => DELIVERED) {
    const context = await browser.newContext({ locale: 'de-DE', viewport: { width: 640, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    const calls: ToolCall[] = [];
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    await page.exposeFunction('hostCallTool', (params: ToolCall) => {
      calls.push(params);
      return answer(params);
    });
    const url = host.page(html, scenario);
    await page.goto(url);
    const app = page.frameLocator('#app');
    await app.locator('#send').waitFor({ state: 'attached' });
    await until(page, (messages) => messages.some((m) => m.method === 'ui/notifications/initialized'));
    return { page, app, calls, requests, problems, url };
  }

  /** Polls the messages the view has sent to the host until `test` holds. */
  async function until(page: Page, test: (messages: JsonRpc[]) => boolean) {
    await expect.poll(async () => test(await viewMessages(page)), { timeout: 5_000 }).toBe(true);
  }
  const viewMessages = (page: Page) => page.evaluate('window.viewMessages') as Promise<JsonRpc[]>;
  const text = (app: FrameLocator, selector: string) => app.locator(selector).innerText();
  const label = (app: FrameLocator, id: string) => text(app, `label[for="${id}"]`);
  const isFocused = (app: FrameLocator, id: string) => app.locator(`#${id}`).evaluate((el) => el === el.ownerDocument.activeElement);

  async function fillForm(app: FrameLocator, values: { name: string; email: string; message: string; locale?: string; privacy: boolean }) {
    await app.locator('#name').fill(values.name);
    await app.locator('#email').fill(values.email);
    await app.locator('#message').fill(values.message);
    if (values.locale) await app.locator('#locale').selectOption(values.locale);
    await app.locator('#privacy').setChecked(values.privacy);
  }

  it('speaks the MCP Apps handshake: ui/initialize with appInfo, capabilities and version, then initialized, then its size', async () => {
    const { page } = await openApp({ hostContext: { locale: 'en-US', theme: 'light' }, toolInput: {} });
    await until(page, (messages) => messages.some((m) => m.method === 'ui/notifications/size-changed'));
    const [initialize, initialized] = await viewMessages(page);
    expect(initialize).toMatchObject({ jsonrpc: '2.0', method: 'ui/initialize', params: { appInfo: { name: 'portico-contact-form', version: '1.0.0' }, protocolVersion: '2026-01-26' } });
    expect(initialize!.id).toBeTypeOf('number');
    expect(initialize!.params!.appCapabilities).toEqual({ availableDisplayModes: ['inline'] });
    expect(initialized).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
    const size = (await viewMessages(page)).find((m) => m.method === 'ui/notifications/size-changed')!;
    expect(size.id).toBeUndefined();
    expect(size.params).toEqual({ width: expect.any(Number), height: expect.any(Number) });
    expect(size.params!.height).toBeGreaterThan(300);
    // The host sized its iframe from the notification: the whole form shows without a scrollbar.
    expect(await page.locator('#app').evaluate((el) => el.getBoundingClientRect().height)).toBeGreaterThan(300);
  });

  it('answers the host’s ping and ui/resource-teardown requests with an empty result', async () => {
    const { page } = await openApp({ hostContext: { locale: 'en' }, toolInput: {} });
    const ask = (method: string) => page.evaluate(`window.hostRequest(${JSON.stringify(method)}, {})`);
    expect(await ask('ping')).toEqual({ jsonrpc: '2.0', id: expect.any(Number), result: {} });
    expect(await ask('ui/resource-teardown')).toEqual({ jsonrpc: '2.0', id: expect.any(Number), result: {} });
  });

  it('shows Russian labels when the host’s locale is ru-RU, whatever the browser’s own language', async () => {
    const { page, app } = await openApp({ hostContext: { locale: 'ru-RU', theme: 'light' }, toolInput: { name: 'Анна Петрова', email: 'anna@example.com' } });
    const ru = FORM_WORDS.ru;
    await expect.poll(() => text(app, 'h1')).toBe(ru.title);
    expect(await label(app, 'name')).toBe(ru.name);
    expect(await label(app, 'email')).toBe(ru.email);
    expect(await label(app, 'message')).toBe(ru.message);
    expect(await label(app, 'privacy')).toBe(ru.privacy);
    expect(await text(app, '#send')).toBe(ru.send);
    expect(await app.locator('#message').getAttribute('placeholder')).toBe(ru.messagePlaceholder);
    expect(await app.locator('html').getAttribute('lang')).toBe('ru');
    // With no locale in the tool input, the reply language defaults to the page's.
    expect(await app.locator('#locale').inputValue()).toBe('ru');
    await page.screenshot({ path: shot('ru'), fullPage: true });
  });

  it('uses the tool input’s locale (Catalan) when the host’s locale (de) is not one of the six', async () => {
    const { app } = await openApp({ hostContext: { locale: 'de' }, toolInput: { locale: 'ca' } });
    await expect.poll(() => text(app, 'h1')).toBe(FORM_WORDS.ca.title);
    expect(await label(app, 'email')).toBe(FORM_WORDS.ca.email);
    expect(await text(app, '#send')).toBe(FORM_WORDS.ca.send);
    expect(await app.locator('html').getAttribute('lang')).toBe('ca');
  });

  it('falls back to Spanish when neither the host nor the tool input names one of the six', async () => {
    const { app } = await openApp({ hostContext: { locale: 'fr-FR' }, toolInput: { locale: 'fr' } });
    await expect.poll(() => text(app, '#send')).toBe(FORM_WORDS.es.send);
    expect(await text(app, 'h1')).toBe(FORM_WORDS.es.title);
    expect(await app.locator('html').getAttribute('lang')).toBe('es');
  });

  it('switches language when the host sends a host-context-changed with a new locale', async () => {
    const { page, app } = await openApp({ hostContext: { locale: 'en-GB' }, toolInput: {} });
    await expect.poll(() => text(app, '#send')).toBe(FORM_WORDS.en.send);
    await page.evaluate(`window.hostNotify('ui/notifications/host-context-changed', { locale: 'eu-ES' })`);
    await expect.poll(() => text(app, 'h1')).toBe(FORM_WORDS.eu.title);
    expect(await label(app, 'message')).toBe(FORM_WORDS.eu.message);
  });

  it('pre-fills name, e-mail, message and reply language from the tool input, and leaves consent to the person', async () => {
    const { app } = await openApp({ hostContext: { locale: 'es-ES' }, toolInput: { ...GOOD, privacy: true } });
    await expect.poll(() => app.locator('#name').inputValue()).toBe(GOOD.name);
    expect(await app.locator('#email').inputValue()).toBe(GOOD.email);
    expect(await app.locator('#message').inputValue()).toBe(GOOD.message);
    expect(await app.locator('#locale').inputValue()).toBe('ca');
    expect(await app.locator('#privacy').isChecked()).toBe(false);
    // The page stays in the host's language; only the reply language follows the tool input.
    expect(await text(app, '#send')).toBe(FORM_WORDS.es.send);
  });

  it('refuses an empty name, a bad e-mail and an unticked privacy box in the page, accessibly, and sends no tools/call', async () => {
    const { page, app, calls } = await openApp({ hostContext: { locale: 'en-US' }, toolInput: {} });
    const en = FORM_WORDS.en;
    await fillForm(app, { name: '   ', email: 'ana@example', message: 'Hello', privacy: false });
    await app.locator('#send').click();
    await expect.poll(() => text(app, '#name-error')).toBe(en.nameRequired);
    expect(await text(app, '#email-error')).toBe(en.emailInvalid);
    expect(await text(app, '#privacy-error')).toBe(en.privacyRequired);
    for (const id of ['name', 'email', 'privacy']) {
      expect(await app.locator(`#${id}`).getAttribute('aria-invalid')).toBe('true');
      expect(await app.locator(`#${id}`).getAttribute('aria-describedby')).toBe(`${id}-error`);
    }
    expect(await app.locator('#message').getAttribute('aria-invalid')).toBeNull();
    expect(await app.getByRole('alert').innerText()).toBe(en.summary);
    expect(await isFocused(app, 'name')).toBe(true);
    await page.screenshot({ path: shot('errors'), fullPage: true });
    // Fixing a field clears its error as the person types.
    await app.locator('#name').fill('Ana');
    await expect.poll(() => app.locator('#name').getAttribute('aria-invalid')).toBeNull();
    expect(await text(app, '#email-error')).toBe(en.emailInvalid);
    expect(calls).toEqual([]);
    expect((await viewMessages(page)).filter((m) => m.method === 'tools/call')).toEqual([]);
  });

  it('counts lengths in code points: 120 astral letters make a valid name, 121 do not', async () => {
    const { app, calls } = await openApp({ hostContext: { locale: 'en' }, toolInput: {} });
    await fillForm(app, { name: '𝒜'.repeat(121), email: 'ana@example.com', message: 'Hi', privacy: true });
    await app.locator('#send').click();
    await expect.poll(() => text(app, '#name-error')).toBe('At most 120 characters (121 now).');
    expect(calls).toEqual([]);
    await app.locator('#name').fill('𝒜'.repeat(120));
    await app.locator('#send').click();
    await expect.poll(() => calls.length).toBe(1);
    expect(calls[0]!.arguments.name).toBe('𝒜'.repeat(120));
  });

  it('sends good input as tools/call contact_service with exactly the form values and privacy true, then shows success', async () => {
    const { page, app, calls, requests, problems, url } = await openApp({ hostContext: { locale: 'en-US' }, toolInput: {} });
    await fillForm(app, { ...GOOD, privacy: true });
    await app.locator('#send').click();
    await expect.poll(() => text(app, '#done')).toBe(FORM_WORDS.en.success);
    expect(calls).toEqual([{ name: 'contact_service', arguments: { ...GOOD, privacy: true } }]);
    const call = (await viewMessages(page)).find((m) => m.method === 'tools/call')!;
    expect(call).toEqual({ jsonrpc: '2.0', id: expect.any(Number), method: 'tools/call', params: { name: 'contact_service', arguments: { ...GOOD, privacy: true } } });
    expect(await app.getByRole('status').innerText()).toBe(FORM_WORDS.en.success);
    expect(await app.locator('#form').isHidden()).toBe(true);
    expect(await app.locator('#intro').isHidden()).toBe(true);
    expect(await isFocused(app, 'done')).toBe(true);
    await page.screenshot({ path: shot('success'), fullPage: true });
    // Under the spec's restrictive CSP the app made no request of its own and nothing was refused or thrown.
    expect(requests).toEqual([url]);
    expect(problems).toEqual([]);
  });

  it('shows the tool’s own error text when the result has isError true, and lets the person try again', async () => {
    let answer = NOT_SENT;
    const { app, calls } = await openApp({ hostContext: { locale: 'ru' }, toolInput: { ...GOOD } }, () => answer);
    await app.locator('#privacy').check();
    await app.locator('#send').click();
    await expect.poll(() => text(app, '#alert')).toBe(NOT_SENT_TEXT);
    expect(await app.getByRole('alert').innerText()).toBe(NOT_SENT_TEXT);
    expect(await text(app, '#done')).toBe('');
    expect(await app.locator('#send').isEnabled()).toBe(true);
    expect(await text(app, '#send')).toBe(FORM_WORDS.ru.send);
    answer = DELIVERED;
    await app.locator('#send').click();
    await expect.poll(() => text(app, '#done')).toBe(FORM_WORDS.ru.success);
    expect(calls).toHaveLength(2);
  });

  it('shows a generic failure in the page’s language when the host answers a JSON-RPC error', async () => {
    const { app } = await openApp({ hostContext: { locale: 'gl-ES' }, toolInput: { ...GOOD } }, () => ({ error: { code: -32603, message: 'Internal error' } }));
    await app.locator('#privacy').check();
    await app.locator('#send').click();
    await expect.poll(() => text(app, '#alert')).toBe(FORM_WORDS.gl.failure);
    expect(await app.locator('#form').isVisible()).toBe(true);
  });

  it('sends with Enter from a field even when the host’s sandbox withholds allow-forms', async () => {
    const { app, calls } = await openApp({ hostContext: { locale: 'en' }, toolInput: { ...GOOD }, sandbox: 'allow-scripts' });
    await app.locator('#privacy').check();
    await app.locator('#email').press('Enter');
    await expect.poll(() => calls.length).toBe(1);
    await expect.poll(() => text(app, '#done')).toBe(FORM_WORDS.en.success);
  });

  it('shows success at once when the host reports that the tool call which opened it already succeeded', async () => {
    const { app, calls } = await openApp({ hostContext: { locale: 'en' }, toolInput: { ...GOOD, privacy: true }, toolResult: (DELIVERED as { result: Record<string, unknown> }).result });
    await expect.poll(() => text(app, '#done')).toBe(FORM_WORDS.en.success);
    expect(await app.locator('#form').isHidden()).toBe(true);
    expect(calls).toEqual([]);
  });

  it('follows the host’s dark theme and its style variables', async () => {
    const { page, app } = await openApp({
      hostContext: { locale: 'eu', theme: 'dark', styles: { variables: { '--color-background-primary': '#101418' } } },
      toolInput: { name: 'Miren', email: 'miren@example.com' },
    });
    await expect.poll(() => app.locator('html').getAttribute('data-theme')).toBe('dark');
    expect(await app.locator('body').evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).backgroundColor)).toBe('rgb(16, 20, 24)');
    await app.locator('#send').click();
    await expect.poll(() => text(app, '#message-error')).toBe(FORM_WORDS.eu.messageRequired);
    await page.screenshot({ path: shot('dark-eu'), fullPage: true });
  });
});
