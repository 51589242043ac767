// The embeddable form's files: the element's script (stable and digest-named), its settings, and the
// rule that the MCP App and the element are one form: the same program, words and limits.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptJson } from '../../src/modules/common/html.js';
import { FORM_SCRIPT, FORM_STYLE, formConfig } from '../../src/modules/contact-form/form-core.js';
import { contactFormElementScript } from '../../src/modules/contact-form/element.js';
import { embedScript } from '../../src/modules/contact-form/embed-routes.js';
import { contactFormHtml } from '../../src/modules/mcp/ui/contact-form-html.js';
import { startApp, type TestApp } from '../support/app.js';

describe('the MCP App and the element', () => {
  const script = contactFormElementScript();
  const app = contactFormHtml();
  /** The JSON of the form's settings as each shell carries it (words, locales, limits, e-mail pattern). */
  const configIn = (text: string) => {
    const config = formConfig();
    return Object.entries(config).map(([key, value]) => text.includes(`"${key}":${scriptJson(value)}`));
  };

  it('run the one form program and style', () => {
    for (const shell of [script, app]) expect(shell).toContain(FORM_SCRIPT);
    expect(app).toContain(FORM_STYLE);
    // The element applies the style as a constructed sheet: it travels in the script's settings.
    expect(script).toContain(`"style":${JSON.stringify(FORM_STYLE)}`);
  });

  it('carry the same words, locales, limits and e-mail pattern', () => {
    expect(configIn(script).every(Boolean)).toBe(true);
    expect(configIn(app).every(Boolean)).toBe(true);
  });

  it('never evaluate strings, and the element leaves nothing on the page’s window but the element', () => {
    expect(script).not.toMatch(/\beval\(|new Function|setTimeout\(\s*['"`]|innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    expect(script.startsWith('(function () {\n')).toBe(true);
  });
});

describe('GET /embed/*', () => {
  let api: TestApp;
  let plain: TestApp;
  beforeAll(async () => {
    api = await startApp({ TURNSTILE_SECRET_KEY: 'secret', TURNSTILE_SITE_KEY: '0x4AAAAAAA-site', PRIVACY_POLICY_URL: 'https://www.example.com/privacy', RATE_LIMITS: 'off' });
    plain = await startApp({ RATE_LIMITS: 'off' });
  });
  afterAll(async () => {
    await api.close();
    await plain.close();
  });

  it('serves the element to any site: CORS for every origin, cross-origin resource policy, cached an hour, revalidated by ETag', async () => {
    const response = await fetch(`${api.url}/embed/contact-form.js`, { headers: { origin: 'https://www.example.com' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(await response.text()).toBe(contactFormElementScript());
    const again = await fetch(`${api.url}/embed/contact-form.js`, { headers: { 'if-none-match': response.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('serves the same bytes under a digest name, cached a year, with the integrity value the docs publish', async () => {
    const { path, integrity } = embedScript();
    const response = await fetch(`${api.url}${path}`);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const body = Buffer.from(await response.arrayBuffer());
    expect(`sha384-${createHash('sha384').update(body).digest('base64')}`).toBe(integrity);
  });

  it('tells the element the Turnstile site key and PRIVACY_POLICY_URL, or null for each Portico does not have', async () => {
    expect(await (await fetch(`${api.url}/embed/config.json`)).json()).toEqual({ turnstileSiteKey: '0x4AAAAAAA-site', privacyPolicyUrl: 'https://www.example.com/privacy' });
    const none = await fetch(`${plain.url}/embed/config.json`, { headers: { origin: 'https://www.example.com' } });
    expect(none.headers.get('access-control-allow-origin')).toBe('*');
    expect(await none.json()).toEqual({ turnstileSiteKey: null, privacyPolicyUrl: null });
  });
});
