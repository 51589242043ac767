// The API reference page at /docs: its headers and cached assets over HTTP, and what Chromium renders from them.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';
import { CHROMIUM, hasChromium, launchChromium } from './browser-harness.js';

if (!hasChromium) {
  console.warn(`SKIPPED the browser half of test/browser/docs-page.test.ts: ${CHROMIUM} is missing. Install Debian's chromium (as .ci/run does) to run it.`);
}

const ASSET_CACHE_CONTROL = 'public, max-age=86400, immutable';
/** Runs before the page's own scripts; CSP does not apply to it. */
const RECORD_CSP_VIOLATIONS = `window.cspViolations = [];
document.addEventListener('securitypolicyviolation', (event) => window.cspViolations.push(event.effectiveDirective + ' ' + event.blockedURI));`;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let api: TestApp;
beforeAll(async () => {
  api = await startApp({ RATE_LIMITS: 'off' });
});
afterAll(() => api?.close());

/** GET, reading the whole body: an unread body keeps the server writing, and app.close() waiting. */
async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The scripts and style sheets the page links, as absolute URLs. */
async function linkedAssets(): Promise<string[]> {
  const html = (await get(`${api.url}/docs`)).text;
  return [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, `${api.url}/docs`).href).filter((url) => url.startsWith(api.url));
}

/** "METHOD /path" for every operation of the document the app serves. */
async function documentedOperations(): Promise<string[]> {
  const { paths } = (await (await fetch(`${api.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(paths)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => METHODS.includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();
}

describe('GET /docs over HTTP', () => {
  it('answers 200 with an HTML page under a strict Content-Security-Policy', async () => {
    const response = await get(`${api.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = (response.headers.get('content-security-policy') ?? '').split(/;\s*/);
    expect(csp).toEqual(expect.arrayContaining(["default-src 'none'", "script-src 'self'", "connect-src 'self'", "img-src 'self' data:", "frame-ancestors 'none'"]));
    expect(csp.join(';')).not.toMatch(/unsafe-eval|unsafe-inline|https?:/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('names no other origin: no URL with a scheme, no inline script, the spec and assets by relative path', async () => {
    const html = (await get(`${api.url}/docs`)).text;
    expect(html).not.toMatch(/(https?:)?\/\/[a-z0-9]/i);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).toContain('data-spec-url="openapi.json"');
    expect(await linkedAssets()).toHaveLength(3);
  });

  it('serves each linked asset with 200, its type, an ETag and an immutable one-day cache', async () => {
    for (const url of await linkedAssets()) {
      expect(url).toMatch(/\/docs\/assets\/[\w-]+\.[0-9a-f]{16}\.(js|css)$/);
      const response = await get(url);
      expect(response.status, url).toBe(200);
      expect(response.headers.get('content-type'), url).toBe(url.endsWith('.js') ? 'application/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(response.headers.get('cache-control'), url).toBe(ASSET_CACHE_CONTROL);
      expect(response.headers.get('etag'), url).toMatch(/^"[\w-]+"$/);
      expect(response.text.length, url).toBeGreaterThan(100);
    }
  });

  it('answers 304 with no body to an If-None-Match of the asset ETag, weak or listed with others', async () => {
    for (const url of await linkedAssets()) {
      const etag = (await get(url)).headers.get('etag')!;
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`]) {
        const response = await get(url, { 'if-none-match': ifNoneMatch });
        expect(response.status, `${url} ${ifNoneMatch}`).toBe(304);
        expect(response.text).toBe('');
        expect(response.headers.get('etag')).toBe(etag);
        expect(response.headers.get('cache-control')).toBe(ASSET_CACHE_CONTROL);
      }
      expect((await get(url, { 'if-none-match': '"stale"' })).status).toBe(200);
    }
  });

  it('keeps our start-up script free of any URL but the relative spec path it reads from the page', async () => {
    const init = (await linkedAssets()).find((url) => url.includes('/docs-init.'))!;
    expect((await get(init)).text).not.toMatch(/(https?:)?\/\/[a-z0-9]/i);
  });

  it('is documented in /openapi.json, and its assets are not', async () => {
    const operations = await documentedOperations();
    expect(operations).toContain('GET /docs');
    expect(operations.filter((operation) => operation.includes('/docs/'))).toEqual([]);
  });
});

describe.skipIf(!hasChromium)('the /docs page in Chromium', () => {
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
    await page.addInitScript(RECORD_CSP_VIOLATIONS);
    const response = await page.goto(`${api.url}/docs`);
    expect(response?.status()).toBe(200);
  }, 60_000);
  afterAll(() => browser?.close());

  /** "METHOD /path" for every operation block Swagger UI has rendered (an operation with two tags shows twice). */
  const renderedOperations = () =>
    page.$$eval('.opblock', (blocks) => {
      const found = blocks.map((block) => {
        const method = block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '?';
        const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '?';
        return `${method.toUpperCase()} ${path}`;
      });
      return [...new Set(found)].sort();
    });

  it('lists every operation of /openapi.json once the renderer has finished', async () => {
    const expected = await documentedOperations();
    expect(expected.length).toBeGreaterThan(15);
    await expect.poll(renderedOperations, { timeout: 15_000 }).toEqual(expected);
    expect(await page.locator('.info .title').innerText()).toContain('Portico integration API');

    const path = join(tmpdir(), 'portico-docs.png');
    await page.screenshot({ path });
    await page.screenshot({ path: join(tmpdir(), 'portico-docs-full.png'), fullPage: true });
    console.log(`docs page screenshot: ${path}`);
  });

  it('shows each operationId beside its operation', async () => {
    const { paths } = (await (await fetch(`${api.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = Object.values(paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    const shown = await page.locator('.opblock-summary-operation-id').allInnerTexts();
    expect(new Set(shown)).toEqual(new Set(ids));
  });

  it('opens POST /api/contact to show its request body and its responses', async () => {
    const operation = page.locator('.opblock-post').filter({ has: page.locator('[data-path="/api/contact"]') });
    await operation.locator('.opblock-summary').click();
    await expect.poll(() => operation.locator('.responses-table .response-col_status').allInnerTexts()).toContain('415');
    expect(await operation.locator('.opblock-section-request-body').innerText()).toContain('application/json');
    await page.screenshot({ path: join(tmpdir(), 'portico-docs-contact.png') });
  });

  it('sent every request to the app itself, and none to any other origin', async () => {
    const elsewhere = requests.filter((url) => !url.startsWith('data:') && new URL(url).origin !== api.url);
    expect(elsewhere).toEqual([]);
    expect(requests).toContain(`${api.url}/openapi.json`);
  });

  it('logged no console error and met no Content-Security-Policy violation', async () => {
    await page.waitForLoadState('networkidle');
    expect(consoleErrors).toEqual([]);
    expect(await page.evaluate('window.cspViolations')).toEqual([]);
  });
});
