// The local checks (D20): what each reason catches, and what it leaves alone.
import { describe, expect, it } from 'vitest';
import { contentHash, countLinks, localScreening } from './screening.js';

const settings = { enabled: true, hold: [], maxLinks: 5, blockedTerms: ['casino', 'free money', 'año'], duplicateWindowMs: 0, akismet: undefined };
const screen = localScreening(settings);
const inquiry = (fields: { email?: string; message?: string; name?: string; website?: string }) => ({ name: 'Ana', email: 'ana@example.com', message: 'A demo, please.', ...fields });

describe('local screening', () => {
  it('finds nothing in an ordinary inquiry with a link or two', () => {
    expect(screen(inquiry({ message: 'See https://fincas.example and www.example.org/about, e.g. Node.js.' }))).toEqual([]);
  });

  it('names the honeypot when the hidden field holds anything but white space', () => {
    expect(screen(inquiry({ website: 'http://bot.example' }))).toEqual(['honeypot']);
    expect(screen(inquiry({ website: '  ' }))).toEqual([]);
  });

  it('names a throwaway provider, its subdomains and its domain in any case or in fullwidth letters', () => {
    for (const email of ['x@mailinator.com', 'x@eu.mailinator.com', 'x@MAILINATOR.COM', 'x@ｍａｉｌｉｎａｔｏｒ.ｃｏｍ']) {
      expect(screen(inquiry({ email })), email).toEqual(['disposable-address']);
    }
    for (const email of ['x@gmail.com', 'x@mailinator.com.example', 'x@bücher.de']) expect(screen(inquiry({ email })), email).toEqual([]);
  });

  it('counts links with a scheme or www., and names more than SPAM_MAX_LINKS', () => {
    expect(countLinks('http://a.example https://b.example/x?y=1 ftp://c.example www.d.example ｈｔｔｐｓ://e.example')).toBe(5);
    expect(countLinks('example.com, e.g. and Node.js')).toBe(0);
    const six = Array.from({ length: 6 }, (_, i) => `https://s${i}.example`).join('\n');
    expect(screen(inquiry({ message: six }))).toEqual(['links']);
    expect(localScreening({ ...settings, maxLinks: 0 })(inquiry({ message: 'https://one.example' }))).toEqual(['links']);
  });

  it('matches a blocked term as a word in any case, accent, spacing or hidden character, in the message or the name', () => {
    for (const message of ['Best CASINO online', 'casinó!', 'ca\u200bsino', 'Get FREE\n  money now', 'Feliz ano nuevo']) {
      expect(screen(inquiry({ message })), message).toEqual(['blocked-term']);
    }
    expect(screen(inquiry({ name: 'Casino Royale', message: 'Hello' }))).toEqual(['blocked-term']);
    for (const message of ['casinos nearby', 'a freemoney offer', 'occasional']) expect(screen(inquiry({ message })), message).toEqual([]);
  });

  it('gives every reason that applies, in their order', () => {
    const links = Array.from({ length: 6 }, (_, i) => `https://s${i}.example`).join(' ');
    expect(screen({ ...inquiry({ email: 'x@mailinator.com', message: `casino ${links}` }), website: 'x' })).toEqual(['honeypot', 'disposable-address', 'links', 'blocked-term']);
  });

  it('checks nothing but the honeypot when screening is off', () => {
    const off = localScreening({ ...settings, enabled: false });
    expect(off({ ...inquiry({ email: 'x@mailinator.com', message: 'casino' }), website: 'x' })).toEqual(['honeypot']);
    expect(off(inquiry({ email: 'x@mailinator.com', message: 'casino' }))).toEqual([]);
  });
});

describe('the content hash', () => {
  it('is the same for the same address and message, whatever their case and white space', () => {
    expect(contentHash('Ana@Example.com', ' We manage 40\nbuildings. ')).toBe(contentHash('ana@example.com', 'we manage 40 buildings.'));
  });

  it('differs for another address or another message', () => {
    const hash = contentHash('ana@example.com', 'A demo');
    expect(contentHash('bo@example.com', 'A demo')).not.toBe(hash);
    expect(contentHash('ana@example.com', 'A demo!')).not.toBe(hash);
  });
});
