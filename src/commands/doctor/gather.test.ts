import { describe, expect, it } from 'vitest';
import { jsonObject } from './gather.js';

describe('jsonObject', () => {
  it('reads an object nested as deep as 64 levels, strings holding brackets aside', () => {
    const deep = `${'{"a":'.repeat(63)}{"s":"[[[{{{\\"]]]"}${'}'.repeat(63)}`;
    expect(jsonObject(deep)).toBeDefined();
  });

  it('parses nothing nested deeper than 64 levels, however short', () => {
    expect(jsonObject(`{"a":${'['.repeat(64)}${']'.repeat(64)}}`)).toBeUndefined();
    expect(jsonObject(`{"a":${'['.repeat(256 * 1024)}${']'.repeat(256 * 1024)}}`)).toBeUndefined();
  });

  it('is undefined for an array, a cut body or an HTML page', () => {
    expect(jsonObject('[]')).toBeUndefined();
    expect(jsonObject('{"a":')).toBeUndefined();
    expect(jsonObject('<html></html>')).toBeUndefined();
  });
});
