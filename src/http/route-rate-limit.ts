// A route's per-IP rate limit (contract section 8, D9): counted in the shared store (memory, or Redis for
// every node) under the key the contact tool counts under too (D14), announced in RateLimit-* headers on
// every answer, and refused with 429 and Retry-After (RFC 6585 section 4) once spent.
import type { onRequestHookHandler } from 'fastify';
import { AppError } from '../errors.js';
import { policyHeader, type Limit, type LimitName } from '../config/rate-limits.js';
import { addressLimitKey } from './rate-limit-key.js';
import type { CounterStore } from '../ports/rate-limiter.js';

/**
 * The hook that counts a route's request and refuses it once its client's budget is spent: a callback-style
 * onRequest hook, before the body is read. @fastify/rate-limit's hook is an async function that awaits
 * the key, the store and its own result (three promises and their microtask turns on every request of a
 * limited route); a refused request is what an abusive client sends by the thousand, and what refusing
 * it costs is what such a client can make a node spend.
 */
export function rateLimitHook(name: LimitName, limit: Limit, store: CounterStore, refused: (name: LimitName) => void): onRequestHookHandler {
  const windowMs = limit.windowSeconds * 1000;
  const policy = policyHeader(limit);
  return (request, reply, done) => {
    store.incr(
      addressLimitKey(request.ip, name),
      (error, counter) => {
        if (error) return done(error);
        // draft-ietf-httpapi-ratelimit-headers: the budget, what is left of it, and seconds until it resets.
        const reset = Math.ceil(counter.ttl / 1000);
        reply.header('ratelimit-policy', policy).header('ratelimit-limit', limit.max);
        if (counter.current <= limit.max) {
          reply.header('ratelimit-remaining', limit.max - counter.current).header('ratelimit-reset', reset);
          return done();
        }
        refused(name);
        reply.header('ratelimit-remaining', 0).header('ratelimit-reset', reset).header('retry-after', reset);
        // Refused before the body is read: no later hook or the handler runs.
        done(new AppError('rate_limited', `rate limit of ${limit.max} requests exceeded; retry in ${reset} s`));
      },
      windowMs,
      limit.max,
    );
  };
}
