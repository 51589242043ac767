// Cloudflare Turnstile server-side validation over the siteverify protocol.
import type { Random } from '../../ports/random.js';
import { HumanCheckUnavailable, type HumanCheck, type HumanCheckResult } from '../../ports/human-check.js';
import { formPoster, type Answer } from '../form-poster.js';

export interface SiteverifyOptions {
  secretKey: string;
  verifyUrl: string;
  /** Hostnames a token may have been solved on; empty means any (Cloudflare test keys report example.com). */
  allowedHostnames: readonly string[];
  timeoutMs: number;
  random: Random;
}

interface SiteverifyResponse {
  success?: unknown;
  hostname?: unknown;
  'error-codes'?: unknown;
}

// Codes that say Cloudflare, or our secret, failed, not the visitor: no verdict on the token.
const OUTAGE_CODES = new Set(['internal-error', 'missing-input-secret', 'invalid-input-secret']);

// Its answers are a few hundred bytes; anything far larger is not one of them, and is not buffered.
const MAX_ANSWER_BYTES = 16 * 1024;

/**
 * A HumanCheck over siteverify: a token fails when Cloudflare refuses it or names a host it may not be
 * solved on. No usable answer, even after one retry, throws HumanCheckUnavailable: no verdict on the token.
 */
export function siteverifyHumanCheck(options: SiteverifyOptions): HumanCheck {
  const poster = formPoster(new URL(options.verifyUrl), MAX_ANSWER_BYTES);

  const ask = async (token: string, remoteIp: string, idempotencyKey: string): Promise<HumanCheckResult> => {
    let answer: Answer;
    try {
      answer = await poster.post({ secret: options.secretKey, response: token, remoteip: remoteIp, idempotency_key: idempotencyKey }, AbortSignal.timeout(options.timeoutMs));
    } catch (error) {
      throw new HumanCheckUnavailable(`siteverify: no whole answer: ${(error as Error).name}: ${(error as Error).message}`);
    }
    if (answer.status < 200 || answer.status > 299) throw new HumanCheckUnavailable(`siteverify answered HTTP ${answer.status}`);
    let result: unknown;
    try {
      result = JSON.parse(answer.text);
    } catch {
      throw new HumanCheckUnavailable('siteverify answered with something other than JSON');
    }
    // Valid JSON is not yet an answer: `null`, a list, or an object without a boolean `success` (a
    // broken proxy's `{"error": ...}`) says nothing of the token, so it is an outage, not a refusal.
    if (typeof result !== 'object' || result === null || Array.isArray(result) || typeof (result as SiteverifyResponse).success !== 'boolean') {
      throw new HumanCheckUnavailable('siteverify answered JSON that is not a siteverify answer');
    }
    return verdict(result);
  };

  function verdict(result: SiteverifyResponse): HumanCheckResult {
    const codes = Array.isArray(result['error-codes']) ? result['error-codes'].map(String) : [];
    if (codes.some((code) => OUTAGE_CODES.has(code))) throw new HumanCheckUnavailable(`siteverify: ${codes.join(', ')}`);
    if (result.success !== true) return { passed: false, reasons: codes.length ? codes : ['unsuccessful'] };
    const hostnames = options.allowedHostnames;
    if (hostnames.length && !hostnames.includes(String(result.hostname))) return { passed: false, reasons: ['hostname-mismatch'] };
    return { passed: true };
  }

  return {
    close: poster.close,
    async verify({ token, remoteIp }) {
      // One retry, with the same idempotency_key, so Cloudflare answers it without spending the token twice.
      const idempotencyKey = options.random.uuid();
      try {
        return await ask(token, remoteIp, idempotencyKey);
      } catch (error) {
        if (!(error instanceof HumanCheckUnavailable)) throw error;
        return ask(token, remoteIp, idempotencyKey);
      }
    },
  };
}
