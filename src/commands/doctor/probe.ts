// The requests `portico doctor` makes, over node:http and node:https rather than fetch: a check needs the
// TLS peer certificate (its expiry) and to tell a server that never took the connection from one that
// took it and did not answer in time, which fetch hides behind one TypeError.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { TLSSocket } from 'node:tls';

export interface ProbeRequest {
  method: 'GET' | 'POST' | 'OPTIONS';
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface PeerCertificate {
  subject: string;
  issuer: string;
  /** Milliseconds since the epoch. */
  validTo: number;
}

/**
 * How a request failed: `unreachable` (no connection: refused, no such host, no route, or none within the
 * budget), `tls` (the handshake or the certificate, or no handshake within the budget), `timeout`
 * (connected, no whole answer within the budget), `broken` (anything else after connecting: a reset, a
 * malformed answer).
 */
export interface Failure {
  kind: 'unreachable' | 'tls' | 'timeout' | 'broken';
  code: string;
  message: string;
}

export interface Answer {
  method: string;
  url: string;
  /** From the request's start to its answer's last byte, or to the failure. */
  ms: number;
  status?: number;
  /** Lower-case names; repeated headers joined by ", ". */
  headers: Record<string, string>;
  body: string;
  failure?: Failure;
  certificate?: PeerCertificate;
}

export interface Prober {
  send(request: ProbeRequest): Promise<Answer>;
  /** Closes the kept-alive connections, so that the command can exit. */
  close(): void;
}

// A discovery document is a few KB and the MCP App's page about 100 KB: an answer longer than 1 MB is
// no Portico's, and reading on would let the server spend the command's memory and time.
const MAX_BODY_BYTES = 1024 * 1024;
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ECONNRESET']);

/**
 * A prober whose every request must end within `budgetMs`, timed by `elapsed` (a monotonic clock in
 * milliseconds). Connections are kept alive between requests, as a host's HTTP client keeps them, and
 * each request of a round gets a connection of its own: one queued behind a connection that never
 * answers would run out its budget unsent, and be told as a connection never made.
 */
export function prober(budgetMs: number, elapsed: () => number = () => performance.now()): Prober {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  return {
    send: (request) => send(request, budgetMs, elapsed, agents),
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function send(request: ProbeRequest, budgetMs: number, elapsed: () => number, agents: { http: HttpAgent; https: HttpsAgent }): Promise<Answer> {
  const started = elapsed();
  const https = request.url.startsWith('https:');
  return new Promise((resolve) => {
    const answer: Answer = { method: request.method, url: request.url, ms: 0, headers: {}, body: '' };
    // `opened`: the TCP connection is made; `connected`: ready for HTTP (for https, its TLS handshake done too).
    let opened = false;
    let connected = false;
    let settled = false;
    const finish = (failure?: Failure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      answer.ms = Math.round(elapsed() - started);
      if (failure) answer.failure = failure;
      resolve(answer);
    };
    const headers = { 'user-agent': 'portico-doctor', ...request.headers, ...(request.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(request.body)) }) };
    const req: ClientRequest = (https ? httpsRequest : httpRequest)(request.url, { method: request.method, headers, agent: https ? agents.https : agents.http });
    const timer = setTimeout(() => {
      const seconds = budgetMs / 1000;
      if (connected) finish({ kind: 'timeout', code: 'ETIMEDOUT', message: `no whole answer within ${seconds} s` });
      // A port that takes the connection and never speaks TLS (a plain TCP service, a wedged proxy).
      else if (opened) finish({ kind: 'tls', code: 'ETIMEDOUT', message: `the TLS handshake did not finish within ${seconds} s` });
      else finish({ kind: 'unreachable', code: 'ETIMEDOUT', message: `no connection within ${seconds} s` });
      req.destroy();
    }, budgetMs);
    req.on('socket', (socket) => {
      // A kept-alive socket is connected already; a new one says so once its handshake is done.
      if (!socket.connecting) opened = connected = true;
      else {
        socket.once('connect', () => {
          opened = true;
          if (!https) connected = true;
        });
        if (https) socket.once('secureConnect', () => (connected = true));
      }
    });
    req.on('error', (error: NodeJS.ErrnoException) => finish(classify(error, connected)));
    req.on('response', (res: IncomingMessage) => {
      answer.status = res.statusCode;
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) answer.headers[name] = Array.isArray(value) ? value.join(', ') : value;
      const certificate = res.socket instanceof TLSSocket ? peerCertificate(res.socket) : undefined;
      if (certificate) answer.certificate = certificate;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
        finish({ kind: 'broken', code: 'E2BIG', message: `the answer is longer than ${MAX_BODY_BYTES / 1024 / 1024} MB; not read further` });
        req.destroy();
      });
      res.on('end', () => {
        answer.body = Buffer.concat(chunks).toString('utf8');
        finish();
      });
      res.on('error', (error: NodeJS.ErrnoException) => finish(classify(error, true)));
      // A connection closed in the middle of the body ends the answer without 'end'.
      res.on('close', () => finish(res.complete ? undefined : { kind: 'broken', code: 'ECONNRESET', message: 'the connection closed before the answer ended' }));
    });
    req.end(request.body);
  });
}

/** A request error as the kind of failure a line can explain. */
function classify(error: NodeJS.ErrnoException, connected: boolean): Failure {
  const code = error.code ?? 'ERROR';
  const message = error.message;
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code) || /certificate|SSL routines|wrong version number/i.test(message)) return { kind: 'tls', code, message };
  if (!connected && UNREACHABLE.has(code)) return { kind: 'unreachable', code, message };
  return { kind: 'broken', code, message };
}

function peerCertificate(socket: TLSSocket): PeerCertificate | undefined {
  const peer = socket.getPeerCertificate();
  // An empty object when the peer sent none (or the socket is gone).
  if (!peer.valid_to) return undefined;
  const name = (entry: { CN?: string | string[]; O?: string | string[] } | undefined) => [entry?.CN ?? entry?.O ?? ''].flat().join(', ');
  return { subject: name(peer.subject), issuer: name(peer.issuer), validTo: Date.parse(peer.valid_to) };
}
