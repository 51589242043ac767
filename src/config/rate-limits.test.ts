// parseRateLimits (the RATE_LIMITS syntax: default, off, per-name lists, units) and the RateLimit-Policy value.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS, LIMIT_NAMES, parseRateLimits, policyHeader } from './rate-limits.js';

class Refused extends Error {}
const fail = (problem: string): never => {
  throw new Refused(problem);
};
const parse = (raw: string) => parseRateLimits(raw, fail);

describe('parseRateLimits', () => {
  it('gives the contract limits for default, and ours: revocations as token requests, 60 inquiries an hour per OAuth client through the tool', () => {
    expect(parse('default')).toEqual({
      contact: { max: 8, windowSeconds: 3600 },
      register: { max: 10, windowSeconds: 3600 },
      token: { max: 30, windowSeconds: 60 },
      authorize: { max: 30, windowSeconds: 60 },
      mcp: { max: 60, windowSeconds: 60 },
      revoke: { max: 30, windowSeconds: 60 },
      'contact-client': { max: 60, windowSeconds: 3600 },
    });
  });

  it('reads hyphenated names (contact-client)', () => {
    expect(parse('contact-client=5/h')['contact-client']).toEqual({ max: 5, windowSeconds: 3600 });
    expect(parse('contact-client=off')['contact-client']).toBeUndefined();
  });

  it('switches every limit off for off, keeping every name', () => {
    const limits = parse('off');
    expect(Object.keys(limits).sort()).toEqual([...LIMIT_NAMES].sort());
    for (const name of LIMIT_NAMES) expect(limits[name]).toBeUndefined();
  });

  it('accepts the full list written in the design', () => {
    expect(parse('contact=8/h,register=10/h,token=30/m,authorize=30/m,mcp=60/m')).toEqual(DEFAULT_RATE_LIMITS);
  });

  it('keeps the default of every name a partial list leaves out', () => {
    const limits = parse('contact=2/m,mcp=100/m');
    expect(limits.contact).toEqual({ max: 2, windowSeconds: 60 });
    expect(limits.mcp).toEqual({ max: 100, windowSeconds: 60 });
    expect(limits.register).toEqual(DEFAULT_RATE_LIMITS.register);
    expect(limits.token).toEqual(DEFAULT_RATE_LIMITS.token);
    expect(limits.authorize).toEqual(DEFAULT_RATE_LIMITS.authorize);
  });

  it('switches one limit off with name=off and keeps the others', () => {
    const limits = parse('register=off');
    expect(limits.register).toBeUndefined();
    expect(limits.contact).toEqual(DEFAULT_RATE_LIMITS.contact);
    expect(limits.mcp).toEqual(DEFAULT_RATE_LIMITS.mcp);
  });

  it.each([
    ['s', 1],
    ['m', 60],
    ['h', 3600],
    ['d', 86400],
  ])('reads the unit %s as %i seconds', (unit, seconds) => {
    expect(parse(`token=5/${unit}`).token).toEqual({ max: 5, windowSeconds: seconds });
  });

  it('reads a window of several units: 10/5m is 10 per 300 seconds', () => {
    expect(parse('contact=10/5m').contact).toEqual({ max: 10, windowSeconds: 300 });
    expect(parse('contact=3/2h').contact).toEqual({ max: 3, windowSeconds: 7200 });
  });

  it('tolerates spaces around names, counts and items', () => {
    expect(parse(' contact = 4 / h , token=off ')).toMatchObject({ contact: { max: 4, windowSeconds: 3600 }, token: undefined });
  });

  it('returns frozen tables and leaves the defaults untouched', () => {
    const limits = parse('contact=1/s');
    expect(Object.isFrozen(limits)).toBe(true);
    expect(Object.isFrozen(parse('off'))).toBe(true);
    expect(Object.isFrozen(parse('default'))).toBe(true);
    expect(DEFAULT_RATE_LIMITS.contact).toEqual({ max: 8, windowSeconds: 3600 });
  });

  it.each([
    ['a count that is not a number', 'contact=abc'],
    ['an unknown name', 'unknown=1/m'],
    ['a missing unit', 'contact=8'],
    ['an unknown unit', 'contact=8/w'],
    ['a zero count', 'contact=0/h'],
    ['a zero window', 'contact=8/0h'],
    ['a window over 30 days', 'contact=8/99999999999999d'],
    ['a count over a million', 'contact=99999999999999999999/h'],
    ['an empty item', 'contact=8/h,'],
    ['an uppercase keyword', 'OFF'],
  ])('refuses %s, quoting the item in one line', (_case, raw) => {
    let problem = '';
    try {
      parse(raw);
    } catch (error) {
      expect(error).toBeInstanceOf(Refused);
      problem = (error as Error).message;
    }
    expect(problem).not.toBe('');
    expect(problem).not.toContain('\n');
  });

  it('takes windows up to 30 days and counts up to a million, and names both bounds beyond them', () => {
    expect(parse('register=1000000/30d').register).toEqual({ max: 1_000_000, windowSeconds: 30 * 86_400 });
    expect(() => parse('register=10/31d')).toThrow('allows at most 1000000 requests a window and windows of at most 30d (got "register=10/31d")');
  });

  it('names the limits it knows when it refuses an unknown one', () => {
    expect(() => parse('unknown=1/m')).toThrow(/contact, register, token, authorize, mcp/);
    expect(() => parse('unknown=1/m')).toThrow(/"unknown=1\/m"/);
  });
});

describe('policyHeader', () => {
  it('writes a limit as count;w=seconds', () => {
    expect(policyHeader({ max: 8, windowSeconds: 3600 })).toBe('8;w=3600');
    expect(policyHeader(parse('contact=10/5m').contact!)).toBe('10;w=300');
  });
});
