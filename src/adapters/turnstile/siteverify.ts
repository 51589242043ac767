// Cloudflare Turnstile server-side validation over the siteverify protocol.
import type { Random } from '../../ports/random.js';
import { HumanCheckUnavailable, type HumanCheck, type HumanCheckResult } from '../../ports/human-check.js';

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

export function siteverifyHumanCheck(options: SiteverifyOptions): HumanCheck {
  const ask = async (token: string, remoteIp: string, idempotencyKey: string): Promise<HumanCheckResult> => {
    // The secret travels in the form body, never in the URL, so proxies do not log it.
    const body = new URLSearchParams({ secret: options.secretKey, response: token, remoteip: remoteIp, idempotency_key: idempotencyKey });
    let response: Response;
    try {
      response = await fetch(options.verifyUrl, { method: 'POST', body, signal: AbortSignal.timeout(options.timeoutMs) });
    } catch (error) {
      throw new HumanCheckUnavailable(`siteverify unreachable: ${(error as Error).name}`);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new HumanCheckUnavailable(`siteverify answered HTTP ${response.status}`);
    }
    let result: SiteverifyResponse;
    try {
      result = (await response.json()) as SiteverifyResponse;
    } catch {
      throw new HumanCheckUnavailable('siteverify answered with something other than JSON');
    }
    const codes = Array.isArray(result['error-codes']) ? result['error-codes'].map(String) : [];
    if (codes.some((code) => OUTAGE_CODES.has(code))) throw new HumanCheckUnavailable(`siteverify: ${codes.join(', ')}`);
    if (result.success !== true) return { passed: false, reasons: codes.length ? codes : ['unsuccessful'] };
    const hostnames = options.allowedHostnames;
    if (hostnames.length && !hostnames.includes(String(result.hostname))) return { passed: false, reasons: ['hostname-mismatch'] };
    return { passed: true };
  };

  return {
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
