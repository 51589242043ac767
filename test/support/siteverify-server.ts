// A loopback server speaking Cloudflare's siteverify protocol, with the answers Cloudflare gives.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * Tokens choose the answer: `pass` (hostname localhost), `pass@host` (solved on `host`), `fail`,
 * `internal-error`, `http-500`, `stall` (never answers), `flaky` (stalls once, then passes), and
 * garbage a broken proxy or a bad deploy in front of it could answer: `html` (200, an HTML page),
 * `json-null` (200, the JSON value null), `truncated` (200, half a JSON body, then the connection cut),
 * `huge` (200, a passing answer padded to 4 MB), `not-an-answer` (200, a JSON object without `success`).
 * Every token is single-use, as on Cloudflare: a second use gives `timeout-or-duplicate`, unless it
 * repeats the first call's idempotency_key, which replays the first answer.
 */
export interface SiteverifyCall {
  secret: string;
  response: string;
  remoteip: string;
  idempotency_key: string;
}

export interface TestSiteverify {
  url: string;
  secret: string;
  calls: SiteverifyCall[];
  close(): Promise<void>;
}

/** Over HTTPS when `tls` (a PEM key and certificate) is given, as Cloudflare's endpoint is. */
// Built once: the fault is the size Portico receives, not this server's time serialising it again
// for each of a burst's calls on a busy machine.
const HUGE_ANSWER = Buffer.from(JSON.stringify({ success: true, hostname: 'localhost', 'error-codes': [], padding: 'x'.repeat(4 * 1024 * 1024) }));

export async function startSiteverify(secret = 'test-secret', tls?: { key: string; cert: string }): Promise<TestSiteverify> {
  const calls: SiteverifyCall[] = [];
  const firstAnswer = new Map<string, { key: string; body: object }>();
  const stalledOnce = new Set<string>();
  const answer = (request: IncomingMessage, response: ServerResponse) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const form = new URLSearchParams(raw);
      const call = Object.fromEntries(['secret', 'response', 'remoteip', 'idempotency_key'].map((k) => [k, form.get(k) ?? ''])) as unknown as SiteverifyCall;
      calls.push(call);
      const send = (status: number, body: object) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const token = call.response;
      if (token === 'stall' || (token === 'flaky' && !stalledOnce.has(call.idempotency_key))) {
        stalledOnce.add(call.idempotency_key);
        return; // never answers; the client's timeout must fire
      }
      if (token === 'http-500') return send(500, { error: 'upstream' });
      if (token === 'html') return response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
      if (token === 'not-an-answer') return send(200, { error: 'bad gateway' });
      if (token === 'json-null') return response.writeHead(200, { 'content-type': 'application/json' }).end('null');
      if (token === 'huge') return response.writeHead(200, { 'content-type': 'application/json' }).end(HUGE_ANSWER);
      if (token === 'truncated') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '64' });
        response.write('{"success":tr');
        return void setTimeout(() => response.socket?.destroy(), 20);
      }
      if (call.secret !== secret) return send(200, { success: false, 'error-codes': ['invalid-input-secret'] });
      if (!token) return send(200, { success: false, 'error-codes': ['missing-input-response'] });
      if (token === 'internal-error') return send(200, { success: false, 'error-codes': ['internal-error'] });
      const earlier = firstAnswer.get(token);
      if (earlier) {
        return send(200, earlier.key === call.idempotency_key && call.idempotency_key ? earlier.body : { success: false, 'error-codes': ['timeout-or-duplicate'] });
      }
      const body =
        token.startsWith('pass') || token === 'flaky'
          ? { success: true, challenge_ts: new Date().toISOString(), hostname: token.split('@')[1] ?? 'localhost', 'error-codes': [], action: '', cdata: '' }
          : { success: false, 'error-codes': ['invalid-input-response'] };
      firstAnswer.set(token, { key: call.idempotency_key, body });
      send(200, body);
    });
  };
  const server: Server = tls ? createTlsServer(tls, answer) : createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/turnstile/v0/siteverify`,
    secret,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
