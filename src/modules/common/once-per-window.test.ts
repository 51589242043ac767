import { describe, expect, it } from 'vitest';
import { oncePerWindow } from './once-per-window.js';

describe('oncePerWindow', () => {
  it('lets the first event of a key through, counts the rest of its window, and reports them with the next window', () => {
    let now = 0;
    const once = oncePerWindow({ now: () => now }, 60_000);
    expect(once('203.0.113.7')).toBe(0);
    expect(once('203.0.113.7')).toBeUndefined();
    expect(once('203.0.113.7')).toBeUndefined();
    expect(once('198.51.100.1')).toBe(0);
    now = 60_000;
    expect(once('203.0.113.7')).toBe(2);
    expect(once('203.0.113.7')).toBeUndefined();
  });

  it('remembers at most maxKeys keys, forgetting the one logged longest ago', () => {
    const once = oncePerWindow({ now: () => 0 }, 60_000, 2);
    expect(once('a')).toBe(0);
    expect(once('b')).toBe(0);
    expect(once('c')).toBe(0);
    expect(once('b')).toBeUndefined();
    expect(once('a')).toBe(0);
  });
});
