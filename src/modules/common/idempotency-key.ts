// The Idempotency-Key request header (draft-ietf-httpapi-idempotency-key-header), read alike by
// POST /api/contact and the contact_service tool (D8).
import * as z from 'zod';
import { invalidRequest } from '../../errors.js';

// RFC 8941 sf-string-like key, as draft-ietf-httpapi-idempotency-key-header suggests: printable ASCII.
export const IdempotencyKey = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/)
  .meta({
    description: 'Makes retries safe: a repeat of a delivered request replays 200 without a second e-mail. 1-255 printable ASCII characters.',
  });

/**
 * The Idempotency-Key header's value, undefined without one; AppError invalid_request when it is repeated
 * or not 1-255 printable ASCII characters.
 */
export function readIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = IdempotencyKey.safeParse(value);
  if (!parsed.success) throw invalidRequest('Idempotency-Key must be one header of 1-255 printable ASCII characters');
  return parsed.data;
}
