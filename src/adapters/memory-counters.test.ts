// The node's own rate-limit counters: a fixed window per key, bounded in how many keys it keeps.
import { describe, expect, it } from 'vitest';
import { memoryCounters } from './memory-counters.js';

const count = (store: ReturnType<typeof memoryCounters>, key: string, windowMs = 60_000) =>
  new Promise<{ current: number; ttl: number }>((resolve, reject) => store.incr(key, (error, counter) => (error ? reject(error) : resolve(counter)), windowMs, 5));

describe('memory counters', () => {
  it('count each key on its own, with the time left in its window', async () => {
    let now = 1_000;
    const store = memoryCounters({ now: () => now });
    expect(await count(store, 'a')).toEqual({ current: 1, ttl: 60_000 });
    now += 15_000;
    expect(await count(store, 'a')).toEqual({ current: 2, ttl: 45_000 });
    expect(await count(store, 'b')).toEqual({ current: 1, ttl: 60_000 });
  });

  it('start a new window once the last one is over', async () => {
    let now = 0;
    const store = memoryCounters({ now: () => now });
    for (let i = 0; i < 7; i++) await count(store, 'a');
    now = 60_000;
    expect(await count(store, 'a')).toEqual({ current: 1, ttl: 60_000 });
  });

  it('forget the least recently counted key beyond the keys they keep', async () => {
    const store = memoryCounters({ now: () => 0 }, 2);
    await count(store, 'a');
    await count(store, 'a');
    await count(store, 'b');
    await count(store, 'c');
    expect((await count(store, 'a')).current).toBe(1);
    expect((await count(store, 'c')).current).toBe(2);
  });
});
