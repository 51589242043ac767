// Randomness, injected: identifiers and secrets come from here, never from Math.random.
import { randomBytes, randomUUID } from 'node:crypto';

export interface Random {
  uuid(): string;
  bytes(length: number): Buffer;
}

export const cryptoRandom: Random = { uuid: () => randomUUID(), bytes: (length) => randomBytes(length) };
