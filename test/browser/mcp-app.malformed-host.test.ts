// The contact-form app against host messages the official SDK host never sends: malformed, unknown,
// or from a frame that is not its parent. A host of this repository's own (./mcp-app-host.ts) speaks them.
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { contactFormHtml } from '../../src/modules/mcp/ui/contact-form-html.js';
import { FORM_WORDS } from '../../src/modules/contact-form/form-words.js';
import { hasChromium, launchChromium, sayWhenSkipped } from './browser-harness.js';
import { startAppHost, type AppHost, type HostScenario } from './mcp-app-host.js';

sayWhenSkipped('test/browser/mcp-app.malformed-host.test.ts');

type HostAnswer = { result: unknown } | { error: { code: number; message: string } };
interface JsonRpc {
  jsonrpc: string;
  id?: string | number;
  method?: string;
  result?: unknown;
  error?: { code: number };
}

const GOOD = { name: 'Ana Pérez', email: 'ana@example.com', message: 'A demo for 40 homes, please.' };

describe.skipIf(!hasChromium)('the contact-form app and a host that misbehaves', () => {
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

  async function openApp(scenario: HostScenario, answer: () => HostAnswer = () => ({ error: { code: -32603, message: 'unused' } })) {
    const context = await browser.newContext({ locale: 'en-US' });
    contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    const calls: unknown[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.exposeFunction('hostCallTool', (params: unknown) => {
      calls.push(params);
      return answer();
    });
    await page.goto(host.page(html, scenario));
    const app = page.frameLocator('#app');
    await app.locator('#send').waitFor({ state: 'attached' });
    await expect.poll(async () => (await viewMessages(page)).some((m) => m.method === 'ui/notifications/initialized')).toBe(true);
    return { page, app, problems, calls };
  }
  const viewMessages = (page: Page) => page.evaluate('window.viewMessages') as Promise<JsonRpc[]>;
  const text = (app: FrameLocator, selector: string) => app.locator(selector).innerText();
  const notify = (page: Page, method: string, params: unknown) => page.evaluate(`window.hostNotify(${JSON.stringify(method)}, ${JSON.stringify(params)})`);

  it('answers a request for a method it does not have with JSON-RPC -32601, and ping and teardown with {}', async () => {
    const { page } = await openApp({ hostContext: { locale: 'en' }, toolInput: {} });
    const ask = (method: string) => page.evaluate(`window.hostRequest(${JSON.stringify(method)}, {})`) as Promise<JsonRpc>;
    expect(await ask('ui/unknown-thing')).toMatchObject({ jsonrpc: '2.0', error: { code: -32601 } });
    expect(await ask('ping')).toEqual({ jsonrpc: '2.0', id: expect.any(Number), result: {} });
    expect(await ask('ui/resource-teardown')).toEqual({ jsonrpc: '2.0', id: expect.any(Number), result: {} });
  });

  it('ignores messages that are not JSON-RPC 2.0, and tool input that is not an object of strings', async () => {
    const { page, app, problems } = await openApp({ hostContext: { locale: 'en' }, toolInput: { ...GOOD } });
    await expect.poll(() => app.locator('#name').inputValue()).toBe(GOOD.name);
    await page.evaluate(`document.getElementById('app').contentWindow.postMessage('ui/notifications/tool-input', '*')`);
    await page.evaluate(`document.getElementById('app').contentWindow.postMessage({ jsonrpc: '1.0', method: 'ui/notifications/tool-input', params: { arguments: { name: 'Mallory' } } }, '*')`);
    await notify(page, 'ui/notifications/tool-input', { arguments: 'Mallory' });
    await notify(page, 'ui/notifications/tool-input', { arguments: { name: 42, email: ['x'], locale: 'xx' } });
    await notify(page, 'ui/notifications/host-context-changed', { styles: { variables: { color: 'red', '--color-background-primary': 7 } }, theme: 'neon' });
    expect(await app.locator('#name').inputValue()).toBe(GOOD.name);
    expect(await app.locator('#email').inputValue()).toBe(GOOD.email);
    expect(await app.locator('html').getAttribute('data-theme')).toBe('light');
    expect(problems).toEqual([]);
  });

  it('ignores a message from a frame that is not its parent', async () => {
    const { page, app } = await openApp({ hostContext: { locale: 'en' }, toolInput: { ...GOOD } });
    // A sibling frame posts a well-formed tool input to the app: only its parent may.
    await page.evaluate(`(() => {
      const other = document.createElement('iframe');
      other.srcdoc = '<script>parent.frames[0].postMessage({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: { name: "Mallory" } } }, "*")<' + '/script>';
      document.body.appendChild(other);
    })()`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await app.locator('#name').inputValue()).toBe(GOOD.name);
  });

  it('shows the generic failure, in its language, when the answer to tools/call is not a tool result', async () => {
    const { app, calls } = await openApp({ hostContext: { locale: 'gl' }, toolInput: { ...GOOD } }, () => ({ result: null }));
    await app.locator('#privacy').check();
    await app.locator('#send').click();
    await expect.poll(() => text(app, '#alert')).toBe(FORM_WORDS.gl.failure);
    expect(calls).toHaveLength(1);
  });

  it('sends with Enter from a field even when the sandbox withholds allow-forms', async () => {
    const delivered = { result: { content: [{ type: 'text', text: 'sent' }], structuredContent: { ok: true } } };
    const { app, calls } = await openApp({ hostContext: { locale: 'en' }, toolInput: { ...GOOD }, sandbox: 'allow-scripts' }, () => delivered);
    await app.locator('#privacy').check();
    await app.locator('#email').press('Enter');
    await expect.poll(() => calls.length).toBe(1);
    await expect.poll(() => text(app, '#done')).toBe(FORM_WORDS.en.success);
  });
});
