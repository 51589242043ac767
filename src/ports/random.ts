// Randomness, injected: identifiers and secrets come from here, never from Math.random.
import { randomBytes, randomUUID } from 'node:crypto';

export interface Random {
  uuid(): string;
  bytes(length: number): Buffer;
}

/**
 * A UUID version 7 (RFC 9562 section 5.7): 48 bits of Unix milliseconds, then 74 random bits. Keys
 * made of these sort by creation time, so new rows land together at the right edge of a B-tree
 * instead of on a random page each (docs/design.md, "Time-ordered keys").
 */
export function uuidV7(nowMs: number, random: Random): string {
  const bytes = random.bytes(16);
  bytes.writeUIntBE(nowMs, 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f); // version 7
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // variant 10
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// One call to the CSPRNG per 8 KiB instead of one per token: a call's fixed cost (a Buffer, a call into
// OpenSSL) is larger than that of its 32 bytes. Every byte is handed out once.
const POOL_BYTES = 8192;
let pool = randomBytes(POOL_BYTES);
let offset = 0;

function pooledBytes(length: number): Buffer {
  if (length > POOL_BYTES / 4) return randomBytes(length);
  if (offset + length > POOL_BYTES) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  // A copy, so a caller keeping the buffer never sees it reused.
  const bytes = Buffer.from(pool.subarray(offset, offset + length));
  offset += length;
  return bytes;
}

export const cryptoRandom: Random = { uuid: () => randomUUID(), bytes: pooledBytes };
