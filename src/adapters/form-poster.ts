// POSTs of a form to one endpoint, on kept-alive connections of which a fixed number are out at once:
// how Portico asks Turnstile's siteverify and Akismet's comment-check.
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Semaphore } from '../semaphore.js';

/** An HTTP answer read whole. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface FormPoster {
  /** One POST of `form`; resolves with the whole answer, rejects when cut off, too large or too late (`signal`). */
  post(form: Record<string, string>, signal: AbortSignal): Promise<Answer>;
  /** Lets go of kept-alive connections, at shutdown. */
  close(): void;
}

// Connections are kept alive and bounded: a burst of inquiries (or a stalled service) queues here instead
// of opening one socket per inquiry: with fetch, whose pool has no bound, 24 inquiries at once against a
// stalled siteverify held 33 sockets (test/reliability/upstream-faults). The requests wait for a place in
// a Semaphore, not in the agent's own queue: when any socket closes, node:http's Agent opens one for the next
// queued request without checking maxSockets, even one abandoned at its deadline: a burst against a
// stalled service could hold 18.
const MAX_CONNECTIONS = 16;

/**
 * A poster to `url`, whose answers are at most `maxAnswerBytes` (anything larger is not one of them, and
 * is not buffered). Redirects are not followed: the endpoint is configured, and a 3xx from it is a fault.
 */
export function formPoster(url: URL, maxAnswerBytes: number): FormPoster {
  const https = url.protocol === 'https:';
  const agent = new (https ? HttpsAgent : HttpAgent)({ keepAlive: true, maxSockets: MAX_CONNECTIONS, maxFreeSockets: 4 });
  const send = https ? httpsRequest : httpRequest;
  const places = new Semaphore(MAX_CONNECTIONS);

  function post(form: Record<string, string>, signal: AbortSignal) {
    // Secrets travel in the form body, never in the URL, so proxies do not log them.
    const body = new URLSearchParams(form).toString();
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
      places.take(signal).then((release) => {
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
        if (size > maxAnswerBytes) request.destroy(new Error(`answer larger than ${maxAnswerBytes} bytes`));
        else chunks.push(chunk);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
      response.on('close', () => {
        if (!response.complete) reject(new Error('answer cut off'));
      });
    });
    request.on('error', reject);
    request.end(body);
    return request;
  }

  return { post, close: () => agent.destroy() };
}
