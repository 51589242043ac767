// The comparison form of an address: case, fullwidth forms and international domains fold to one.
import { describe, expect, it } from 'vitest';
import { normalizeEmail } from './normalize-email.js';

describe('normalizeEmail', () => {
  it('gives the case variants of one address the same form, the local part lower-cased too', () => {
    for (const typed of ['Privacy.Case@Example.COM', 'privacy.case@example.com', 'PRIVACY.CASE@example.com']) {
      expect(normalizeEmail(typed)).toBe('privacy.case@example.com');
    }
  });

  it('reads fullwidth letters, dots and at signs as their ASCII forms (NFKC)', () => {
    expect(normalizeEmail('ana@ｅｘａｍｐｌｅ．ｃｏｍ')).toBe('ana@example.com');
    expect(normalizeEmail('ＡＮＡ＠ｅｘａｍｐｌｅ.com')).toBe('ana@example.com');
    expect(normalizeEmail('ana@example。com')).toBe('ana@example.com');
  });

  it('writes an international domain in its ASCII IDNA form, whatever its case', () => {
    expect(normalizeEmail('ana@Bücher.de')).toBe('ana@xn--bcher-kva.de');
    expect(normalizeEmail('ana@BÜCHER.DE')).toBe('ana@xn--bcher-kva.de');
    expect(normalizeEmail('ana@xn--bcher-kva.de')).toBe('ana@xn--bcher-kva.de');
  });

  it('splits at the last at sign and drops surrounding white space', () => {
    expect(normalizeEmail('  Ana@Example.com ')).toBe('ana@example.com');
    expect(normalizeEmail('"a@b"@Example.com')).toBe('"a@b"@example.com');
  });

  it('keeps a domain that IDNA refuses as NFKC left it, and an address without an at sign whole', () => {
    expect(normalizeEmail('ana@exa mple.com')).toBe('ana@exa mple.com');
    expect(normalizeEmail('Not An Address')).toBe('not an address');
  });

  it('is idempotent: a normalized address is its own form', () => {
    for (const typed of ['Ana@Bücher.de', 'ana@ｅｘａｍｐｌｅ．ｃｏｍ', 'İ@example.com']) {
      const once = normalizeEmail(typed);
      expect(normalizeEmail(once)).toBe(once);
    }
  });
});
