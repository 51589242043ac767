// Rate-limit counters in this node's memory: a fixed window per key, the keys in an LRU so that a flood
// of distinct addresses is bounded. One store for every route: keys end with the limit's name, so GET
// and POST /oauth/authorize draw from one 30/minute budget.
import { LruMap } from 'toad-cache';
import { systemClock, type Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/rate-limiter.js';

/** Large enough that a flood of distinct addresses cannot evict a limited client's counter cheaply. */
const TRACKED_CLIENTS = 100_000;

interface Window {
  count: number;
  startedAt: number;
}

/** Counters in memory, shared by every route of the node. */
export function memoryCounters(clock: Clock = systemClock, tracked = TRACKED_CLIENTS): CounterStore {
  const windows = new LruMap<Window>(tracked);
  return {
    incr(key, callback, windowMs) {
      const now = clock.now();
      let window = windows.get(key);
      if (window === undefined || window.startedAt + windowMs <= now) {
        window = { count: 0, startedAt: now };
        windows.set(key, window);
      }
      window.count++;
      callback(null, { current: window.count, ttl: window.startedAt + windowMs - now });
    },
  };
}
