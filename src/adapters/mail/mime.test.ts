import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { mailMessage } from '../../../test/support/mail-message.js';
import { composeMime } from './mime.js';

const message = (fields: Partial<Parameters<typeof composeMime>[0]> = {}) => mailMessage({ text: 'Línea uno\nline two\n', ...fields });
const compose = (fields: Partial<Parameters<typeof composeMime>[0]> = {}) =>
  composeMime(message(fields), { messageId: '<m1@portico.example>', date: new Date(Date.UTC(2026, 10, 23, 12, 5, 9)) });

describe('a composed message, read back by a mail parser', () => {
  it('carries every header and the UTF-8 text exactly', async () => {
    const mail = await simpleParser(compose().raw);
    expect(mail.from?.value).toEqual([{ name: 'Portico', address: 'web@portico.example' }]);
    expect(mail.replyTo?.value).toEqual([{ name: 'Ana García', address: 'ana@example.com' }]);
    expect(mail.subject).toBe('New inquiry from Ana García [es]');
    expect(mail.text).toBe('Línea uno\nline two\n');
    expect(mail.messageId).toBe('<m1@portico.example>');
    expect(mail.date?.toISOString()).toBe('2026-11-23T12:05:09.000Z');
    expect(mail.headers.get('x-portico-inquiry-id')).toBe('0190f3a0-0000-7000-8000-000000000001');
  });

  it('keeps every line within 78 characters for a long non-ASCII subject and name (RFC 5322 section 2.1.1)', async () => {
    const name = 'Ñandú '.repeat(20).trim();
    const { raw } = compose({ subject: `New inquiry from ${name} [es]`, replyTo: { name, address: 'a@example.com' } });
    for (const line of raw.split('\r\n\r\n')[0]!.split('\r\n')) expect(line.length).toBeLessThanOrEqual(78);
    const mail = await simpleParser(raw);
    expect(mail.subject).toBe(`New inquiry from ${name} [es]`);
    expect(mail.replyTo?.value[0]?.name).toBe(name);
  });

  it('quotes a name with specials, so it is never read as more addresses', async () => {
    const name = 'Bob, "the" builder <x@evil.example>; Eve';
    const mail = await simpleParser(compose({ replyTo: { name, address: 'bob@example.com' } }).raw);
    expect(mail.replyTo?.value).toEqual([{ name, address: 'bob@example.com' }]);
  });

  it('writes an IDN domain in its ASCII form, in the header and the envelope', async () => {
    const composed = compose({ replyTo: { name: 'Jo', address: 'user@bücher.example' }, to: { name: '', address: 'team@bücher.example' } });
    expect(composed.envelope).toEqual({ from: 'web@portico.example', to: ['team@xn--bcher-kva.example'] });
    expect(composed.raw).toMatch(/^Reply-To: Jo <user@xn--bcher-kva\.example>\r$/m);
  });

  it('sends ASCII text as 7bit with CRLF line ends, and a bare CR or an over-long line as base64', async () => {
    expect(compose({ text: 'plain\nlines\n' }).raw).toContain('Content-Transfer-Encoding: 7bit\r\n\r\nplain\r\nlines\r\n');
    for (const text of ['bare\rcarriage', 'x'.repeat(1200)]) {
      const { raw } = compose({ text });
      expect(raw).toContain('Content-Transfer-Encoding: base64');
      expect((await simpleParser(raw)).text?.replace(/\r/g, '')).toBe(text.replace(/\r/g, ''));
    }
  });

  // RFC 5322 section 2.1.1: at most 998 characters a line, not counting its CRLF.
  it.each([
    ['a line of 998 characters between LF ends', `a\n${'x'.repeat(998)}\nb`, '7bit'],
    ['a line of 998 characters between CRLF ends', `a\r\n${'x'.repeat(998)}\r\nb`, '7bit'],
    ['a last line of 998 characters', `a\n${'x'.repeat(998)}`, '7bit'],
    ['a line of 999 characters between CRLF ends', `a\r\n${'x'.repeat(999)}\r\nb`, 'base64'],
    ['a last line of 999 characters', `a\n${'x'.repeat(999)}`, 'base64'],
    ['a CR before a CRLF', 'a\r\r\nb', 'base64'],
  ])('sends %s as %s', (_case, text, encoding) => {
    expect(compose({ text }).raw).toContain(`Content-Transfer-Encoding: ${encoding}\r\n`);
  });

  it('refuses a header or an address that would break out of its line', () => {
    expect(() => compose({ headers: { 'X-A': 'one\r\nBcc: x@evil.example' } })).toThrow(/unsafe header/);
    for (const name of ['X A', 'X-A:B', 'X-A\r\nBcc', '']) expect(() => compose({ headers: { [name]: 'v' } })).toThrow(/unsafe header/);
    expect(() => compose({ replyTo: { name: 'A', address: 'a\r\nBcc: x@evil.example@example.com' } })).toThrow(/unsafe address/);
  });
});
