// Opaque credentials: 256-bit random values shown once, stored only as SHA-256 hashes (D4).
import { hash, timingSafeEqual } from 'node:crypto';
import type { Random } from '../../ports/random.js';

/** A new 256-bit secret, base64url (43 characters; a valid RFC 6750 b64token). */
export const newSecret = (random: Random) => random.bytes(32).toString('base64url');

/**
 * An access or refresh token: the issue time in milliseconds as 12 hex digits, then a 256-bit secret.
 * The prefix is not secret (RFC 6750 tokens are opaque to clients; the time says nothing they could use),
 * and it makes the stored keys time-ordered: see tokenKey.
 */
export const newToken = (random: Random, nowMs: number) => `${nowMs.toString(16).padStart(TIME_PREFIX, '0')}${newSecret(random)}`;

/**
 * The key a token is stored and looked up under: its time prefix in clear, then the SHA-256 of the
 * whole token. Only the hash of the secret is stored (D4); the prefix orders inserts by time, so a
 * commit of many tokens touches a few B-tree pages at the right edge instead of one random page each
 * (docs/design.md, "Time-ordered keys"). Any presented string maps to a key; a forged one simply matches nothing.
 */
export const tokenKey = (token: string) => `${token.slice(0, TIME_PREFIX)}${sha256(token)}`;

const TIME_PREFIX = 12;

/** A client identifier: 128 random bits; not a secret, but unguessable. */
export const newClientId = (random: Random) => random.bytes(16).toString('base64url');

// A fast hash suffices: the inputs are 256-bit random, so there is nothing to brute-force. The one-shot
// crypto.hash makes no Hash object, which createHash().update().digest() does for every token.
export const sha256 = (value: string) => hash('sha256', value, 'hex');

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(presented: string, storedHash: string): boolean {
  const a = hash('sha256', presented, 'buffer');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
