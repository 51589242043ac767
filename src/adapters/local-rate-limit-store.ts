// An in-process rate-limit store whose routes share one table, so routes of one limit share counters.
import { createRequire } from 'node:module';

// @fastify/rate-limit's LocalStore (a fixed window per key, in an LRU), one for every route: keys end with
// the limit's name, so GET and POST /oauth/authorize draw from one 30/minute budget.
const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, cache: number) => object;

// Large enough that a flood of distinct addresses cannot evict a limited client's counter cheaply.
const TRACKED_CLIENTS = 100_000;

export class SharedLocalStore {
  private readonly inner = new LocalStore(false, false, TRACKED_CLIENTS) as Record<string, (...args: unknown[]) => void>;

  incr(...args: unknown[]): void {
    this.inner.incr!(...args);
  }

  read(...args: unknown[]): void {
    this.inner.read!(...args);
  }

  child(): this {
    return this;
  }
}
