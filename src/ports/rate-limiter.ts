// Counting against a rate limit from inside a module: an inquiry through the MCP tool draws on the same
// quota as one through POST /api/contact (D14), in the same counters as the routes' own limits.
import type { LimitName } from '../config/rate-limits.js';

export interface Throttled {
  retryAfterSeconds: number;
  max: number;
  windowSeconds: number;
}

/** Whom a request is counted for: an IP address (IPv6 by /64, as the routes count) or an OAuth client. */
export type Subject = { address: string } | { clientId: string };

/**
 * The counters behind every rate limit (memory, or Redis shared by every node): counts one request
 * against `key` in a fixed window of `windowMs`, and answers the count so far and the window's time left
 * (@fastify/rate-limit's store shape, callback first, so that a count needs no promise).
 */
export interface CounterStore {
  incr(key: string, callback: (error: Error | null, counter: { current: number; ttl: number }) => void, windowMs: number, max: number): void;
}

export interface RateLimiter {
  /** Counts one against `limit` for `subject`: undefined while within it (or when it is off), else how long to wait. */
  hit(limit: LimitName, subject: Subject): Promise<Throttled | undefined>;
}
