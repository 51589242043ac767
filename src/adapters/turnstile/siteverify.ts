// Cloudflare Turnstile server-side validation over the siteverify protocol.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Random } from '../../ports/random.js';
import { HumanCheckUnavailable, type HumanCheck, type HumanCheckResult } from '../../ports/human-check.js';
import { Slots } from '../slots.js';

export interface SiteverifyOptions {
  secretKey: string;
  verifyUrl: string;
  /** Hostnames a token may have been solved on; empty means any (Cloudflare test keys report example.com). */
  allowedHostnames: readonly string[];
  timeoutMs: number;
  random: Random;
}

/** An HTTP answer read whole. */
interface Answer {
  status: number;
  text: string;
}

interface SiteverifyResponse {
  success?: unknown;
  hostname?: unknown;
  'error-codes'?: unknown;
}

// Codes that say Cloudflare, or our secret, failed, not the visitor: no verdict on the token.
const OUTAGE_CODES = new Set(['internal-error', 'missing-input-secret', 'invalid-input-secret']);

// Connections to siteverify are kept alive and bounded: a burst of browser inquiries (or a stalled
// Cloudflare) queues here instead of opening one socket per inquiry: with fetch, whose pool has no
// bound, 24 inquiries at once against a stalled siteverify held 33 sockets (test/reliability/upstream-faults).
// The requests wait for a place in Slots, not in the agent's own queue: when any socket closes, node:http's
// Agent opens one for the next queued request without checking maxSockets, even one abandoned at its
// deadline: a burst against a stalled siteverify could hold 18.
const MAX_CONNECTIONS = 16;
// Its answers are a few hundred bytes; anything far larger is not one of them, and is not buffered.
const MAX_ANSWER_BYTES = 16 * 1024;

/**
 * A HumanCheck over siteverify: a token fails when Cloudflare refuses it or names a host it may not be
 * solved on. No usable answer, even after one retry, throws HumanCheckUnavailable: no verdict on the token.
 */
export function siteverifyHumanCheck(options: SiteverifyOptions): HumanCheck {
  const url = new URL(options.verifyUrl);
  const https = url.protocol === 'https:';
  const agent = new (https ? HttpsAgent : HttpAgent)({ keepAlive: true, maxSockets: MAX_CONNECTIONS, maxFreeSockets: 4 });
  const send = https ? httpsRequest : httpRequest;
  const slots = new Slots(MAX_CONNECTIONS);

  const ask = async (token: string, remoteIp: string, idempotencyKey: string): Promise<HumanCheckResult> => {
    // The secret travels in the form body, never in the URL, so proxies do not log it.
    const body = new URLSearchParams({ secret: options.secretKey, response: token, remoteip: remoteIp, idempotency_key: idempotencyKey }).toString();
    let answer: Answer;
    try {
      answer = await post(body, AbortSignal.timeout(options.timeoutMs));
    } catch (error) {
      throw new HumanCheckUnavailable(`siteverify: no whole answer: ${(error as Error).name}: ${(error as Error).message}`);
    }
    // Redirects are not followed: the endpoint is configured, and a 3xx from it is a fault.
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

  /** One POST of a form; resolves with the whole answer, rejects when cut off, too large or too late. */
  function post(body: string, signal: AbortSignal) {
    return new Promise<Answer>((settle, fail) => {
      // The deadline settles it whatever the request is doing (waiting for a place, connecting or reading),
      // with the deadline's own reason.
      const onAbort = () => fail(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      const resolve = (answer: Answer) => {
        signal.removeEventListener('abort', onAbort);
        settle(answer);
      };
      const reject = (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        fail(error);
      };
      slots.take(signal).then((release) => {
        const request = exchange(body, signal, resolve, reject);
        // 'close' comes once the socket is back in the pool or closed: only then may another request have it.
        request.on('close', release);
      }, reject);
    });
  }

  /** The request itself, on a place already taken: settles with the whole answer or the reason there is none. */
  function exchange(body: string, signal: AbortSignal, resolve: (answer: Answer) => void, reject: (error: unknown) => void) {
    const headers = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) };
    const request = send(url, { method: 'POST', agent, headers, signal }, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) request.destroy(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
        else chunks.push(chunk);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
      response.on('close', () => {
        if (!response.complete) reject(new Error('answer cut off'));
      });
    });
    request.on('error', reject);
    request.end(body);
    return request;
  }

  return {
    close() {
      agent.destroy();
    },
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
