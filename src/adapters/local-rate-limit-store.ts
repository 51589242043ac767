// Rate-limit counters in this node's memory: @fastify/rate-limit's LocalStore (a fixed window per key,
// in an LRU), one for every route: keys end with the limit's name, so GET and POST /oauth/authorize
// draw from one 30/minute budget.
import { createRequire } from 'node:module';
import type { CounterStore } from '../ports/rate-limiter.js';

const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, cache: number) => CounterStore;

// Large enough that a flood of distinct addresses cannot evict a limited client's counter cheaply.
const TRACKED_CLIENTS = 100_000;

/** Counters in memory, shared by every route of the node. */
export function memoryCounters(): CounterStore {
  return new LocalStore(false, false, TRACKED_CLIENTS);
}
