// The contact-form app's document: self-contained, localized in the six locales, and small.
import { describe, expect, it } from 'vitest';
import { LOCALES } from '../../common/locales.js';
import { PORTABLE_EMAIL_PATTERN } from '../../contact/schema.js';
import { CONTACT_FORM_MIME, CONTACT_FORM_URI, contactFormHtml } from './contact-form-html.js';
import { FORM_SCRIPT, FORM_STYLE } from '../../contact-form/form-core.js';
import { FORM_WORDS, LANGUAGE_NAMES } from '../../contact-form/form-words.js';

const html = contactFormHtml();

describe('the contact-form app document', () => {
  it('is named by the ui:// URI and the MCP App MIME type of D2', () => {
    expect(CONTACT_FORM_URI).toBe('ui://portico/contact-form');
    expect(CONTACT_FORM_MIME).toBe('text/html;profile=mcp-app');
  });

  it('is one HTML5 document that declares its language', () => {
    expect(html.startsWith('<!doctype html>\n<html lang="en"')).toBe(true);
    expect(html.match(/<html\b/g)).toHaveLength(1);
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
  });

  it('refers to nothing outside itself: no URL, no protocol-relative reference, no external resource', () => {
    expect(html).not.toMatch(/https?:/i);
    expect(html).not.toContain('//');
    expect(html).not.toMatch(/\b(?:src|href|action|srcset)\s*=/i);
    expect(html).not.toMatch(/url\(|@import|<link\b|<img\b|<iframe\b/i);
  });

  it('holds PRIVACY_POLICY_URL as data for the consent link, and no other address', () => {
    const linked = contactFormHtml('https://www.example.com/privacy?lang=es');
    expect(linked.match(/https?:/gi)).toEqual(['https:']);
    expect(linked).toContain('"privacyPolicyUrl":"https://www.example.com/privacy?lang=es"');
    expect(linked).not.toMatch(/\b(?:src|href|action|srcset)\s*=/i);
  });

  it('uses no network API at all', () => {
    expect(html).not.toMatch(/\b(?:fetch|XMLHttpRequest|WebSocket|EventSource|sendBeacon|importScripts)\b/);
  });

  it('inlines its one script and one style, closed where they should be', () => {
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    expect(html.match(/<style>/g)).toHaveLength(1);
    expect(html.match(/<\/style>/g)).toHaveLength(1);
  });

  it('contains every word of all six locales, and each language named in itself', () => {
    expect(Object.keys(FORM_WORDS).sort()).toEqual([...LOCALES].sort());
    for (const locale of LOCALES) {
      for (const [key, text] of Object.entries(FORM_WORDS[locale])) {
        expect(html.includes(text), `${locale}.${key}`).toBe(true);
      }
      expect(html).toContain(`"${locale}":${JSON.stringify(LANGUAGE_NAMES[locale])}`);
    }
  });

  it('has a real translation in each locale: no two locales share their whole set of words', () => {
    const sets = LOCALES.map((locale) => JSON.stringify(FORM_WORDS[locale]));
    expect(new Set(sets).size).toBe(LOCALES.length);
    for (const locale of LOCALES) {
      for (const text of Object.values(FORM_WORDS[locale])) expect(text.trim()).not.toBe('');
      expect(FORM_WORDS[locale].tooLong).toContain('{max}');
      expect(FORM_WORDS[locale].tooLong).toContain('{count}');
    }
  });

  it('takes its limits and e-mail pattern from the ContactRequest schema', () => {
    expect(html).toContain('"max":{"name":120,"email":254,"message":5000}');
    expect(html).toContain(`"emailPattern":${JSON.stringify(PORTABLE_EMAIL_PATTERN).replaceAll('&', '\\u0026')}`);
  });

  it('calls the contact_service tool and speaks the 2026-01-26 MCP Apps revision', () => {
    expect(html).toContain('"tool":"contact_service"');
    expect(html).toContain('"protocolVersion":"2026-01-26"');
    for (const method of ['ui/initialize', 'ui/notifications/initialized', 'ui/notifications/tool-input', 'ui/notifications/tool-result', 'tools/call', 'ui/notifications/size-changed']) {
      expect(html).toContain(`'${method}'`);
    }
  });

  it("is the shared contact form in an MCP App shell: the form's program and style, verbatim", () => {
    expect(html).toContain(FORM_SCRIPT);
    expect(html).toContain(FORM_STYLE);
  });

  it('is smaller than 64 KiB', () => {
    expect(Buffer.byteLength(html, 'utf8')).toBeLessThan(64 * 1024);
  });

  it('is built once and returned the same each time', () => {
    expect(contactFormHtml()).toBe(html);
  });
});
