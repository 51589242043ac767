// Opaque credentials: 256-bit random values shown once, stored only as SHA-256 hashes (D4).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Random } from '../../ports/random.js';

/** A new 256-bit secret, base64url (43 characters; a valid RFC 6750 b64token). */
export const newSecret = (random: Random) => random.bytes(32).toString('base64url');

/** A client identifier: 128 random bits; not a secret, but unguessable. */
export const newClientId = (random: Random) => random.bytes(16).toString('base64url');

// A fast hash suffices: the inputs are 256-bit random, so there is nothing to brute-force.
export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(presented: string, storedHash: string): boolean {
  const a = Buffer.from(sha256(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
