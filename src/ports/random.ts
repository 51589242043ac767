// Randomness, injected: identifiers and secrets come from here, never from Math.random.
import { randomBytes, randomUUID } from 'node:crypto';

export interface Random {
  uuid(): string;
  bytes(length: number): Buffer;
}

// One call to the CSPRNG per 8 KiB instead of per token: randomBytes(32) was 4% of the token
// endpoint's profile. Every byte is handed out once.
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
