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

  it('maps the domain as IDNA does before anything lower-cases it, and lower-cases the local part letter by letter, with no final sigma', () => {
    expect(normalizeEmail('g@ΣΑΣ-x.gr')).toBe(normalizeEmail('g@σασ-x.gr'));
    expect(normalizeEmail('g@ΣΑΣ-x.gr')).not.toBe(normalizeEmail('g@σας-x.gr'));
    expect(normalizeEmail('ΟΔΟΣ@example.gr')).toBe('οδοσ@example.gr');
    expect(normalizeEmail('οδος@example.gr')).toBe('οδος@example.gr');
  });

  it('keeps the letters docs/storage.md tables as their own: dotless ı, İ, ß', () => {
    const same = (a: string, b: string) => expect(normalizeEmail(a), `${a} and ${b}`).toBe(normalizeEmail(b));
    const apart = (a: string, b: string) => expect(normalizeEmail(a), `${a} and ${b}`).not.toBe(normalizeEmail(b));
    same('ana@DIYARBAKIR.tr', 'ana@diyarbakir.tr');
    apart('ana@dıyarbakır.tr', 'ana@diyarbakir.tr');
    apart('ı@example.com', 'i@example.com');
    same('ana@İstanbul.tr', 'ana@i\u0307stanbul.tr');
    apart('ana@İstanbul.tr', 'ana@istanbul.tr');
    apart('İ@example.com', 'i@example.com');
    same('ana@STRAẞE.de', 'ana@straße.de');
    apart('ana@straße.de', 'ana@strasse.de');
    same('ẞ@example.de', 'ß@example.de');
    apart('ß@example.de', 'ss@example.de');
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
    for (const typed of ['Ana@Bücher.de', 'ana@ｅｘａｍｐｌｅ．ｃｏｍ', 'İ@example.com', 'g@ΣΑΣ-x.gr', 'ΟΔΟΣ@ΣΑΣ-x.gr']) {
      const once = normalizeEmail(typed);
      expect(normalizeEmail(once)).toBe(once);
    }
  });
});
