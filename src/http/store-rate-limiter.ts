// The RateLimiter port over the counters the routes' rate limits use (memory, or Redis shared by
// every node): the same keys, so a limit counted here and on its route is one limit.
import type { CounterStore, RateLimiter } from '../ports/rate-limiter.js';
import type { RateLimits } from '../config/rate-limits.js';
import { addressLimitKey } from './rate-limit-key.js';

/**
 * A RateLimiter over the routes' counters, under the routes' keys, so an address's limit is its route's too.
 * A limit turned off never throttles, and a store that fails lets the call through.
 */
export function storeRateLimiter(store: CounterStore, limits: RateLimits): RateLimiter {
  return {
    hit(name, subject) {
      const limit = limits[name];
      if (!limit) return Promise.resolve(undefined);
      const key = 'address' in subject ? addressLimitKey(subject.address, name) : `client:${subject.clientId}:${name}`;
      return new Promise((resolve) => {
        store.incr(
          key,
          (error, counter) => {
            // Our stores never fail (Redis falls back to memory); if one did, the call goes through (a route's hook answers 500).
            if (error || counter.current <= limit.max) return resolve(undefined);
            resolve({ retryAfterSeconds: Math.max(1, Math.ceil(counter.ttl / 1000)), max: limit.max, windowSeconds: limit.windowSeconds });
          },
          limit.windowSeconds * 1000,
          limit.max,
        );
      });
    },
  };
}
