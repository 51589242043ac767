// Request logs as nginx writes them: one access line per request (at warn for one left unanswered),
// and the request's id on every line a request logs. The access line is written from node:http's own
// events, beside Fastify rather than through its logger: Fastify given a logger adds two listeners and
// a closure to every response, and builds a whole route options object to name the route; one shared
// listener does neither.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type onRequestHookHandler } from 'fastify';
import proxyAddr from '@fastify/proxy-addr';
import { jsonString } from './json-string.js';
import type { DestinationStream, Logger } from 'pino';
import { LOG_BASE } from '../adapters/log-lines.js';
import { oncePerWindow, type OncePerWindow } from '../modules/common/once-per-window.js';
import type { Clock } from '../ports/clock.js';
import { addressKey } from './rate-limit-key.js';

/** The longest path an access line holds for a request no route served (probes send long ones). */
const MAX_LOGGED_PATH = 200;
/**
 * How long the log stays quiet about one address's unanswered or refused requests (of one status) after
 * a line about them: a flood of slow requests is a line a minute with a count, not a line a request.
 */
const UNANSWERED_LOG_WINDOW_MS = 60_000;
/** An X-Request-Id from a trusted proxy: 1-128 visible ASCII characters (nginx's $request_id is 32 hex). */
const INCOMING_ID = /^[\x21-\x7e]{1,128}$/;

const LOG = Symbol('portico.requestLog');

/**
 * What the access line needs of a request, gathered while it is served: one object of one shape under
 * one key of the request, so that each access is a single property load rather than a lookup on
 * node:http's request object, whose shape varies with what was read of it.
 */
class RequestLog {
  /** The access line's `"route":...` field. */
  route: string | undefined = undefined;
  reply: FastifyReply | undefined = undefined;

  constructor(
    readonly started: number,
    readonly id: string,
  ) {}
}

interface LoggedRequest extends IncomingMessage {
  [LOG]?: RequestLog;
}

export interface AccessLog {
  /** Fastify's `genReqId`: the id the request was given as it arrived. */
  requestId(request: IncomingMessage): string;
  /** Fastify's `childLoggerFactory`: a request's lines carry its id. */
  childLogger(this: unknown, parent: FastifyBaseLogger, bindings: Record<string, unknown>): FastifyBaseLogger;
  /** Fastify's `logController`: its own request lines are left to the access line. */
  controller: LogController;
  /** Starts writing the access lines of the requests `server` answers: before Fastify's listener is called. */
  attach(server: Server): void;
}

/**
 * The access line of every request a server answers: method, route, status, duration, request id, client
 * IP and the bodies' lengths, never the query string (a client may put a token there), a header or a
 * body. Its listener goes ahead of Fastify's, so the duration counts from the request's arrival.
 */
export function accessLog(logger: Logger, destination: DestinationStream, trust: ProxyTrust, processId: string, clock: Clock): AccessLog {
  const ids = requestIds(trust, processId);
  // With no proxy trusted, the client is the peer whatever X-Forwarded-For says: the header is not read.
  const peers = trust === false ? undefined : proxyTrustFunction(trust);
  // One function for every response ('close' comes whether or not the answer was sent): no closure a request.
  const ended = accessLineWriter(logger, destination, peers, oncePerWindow(clock, UNANSWERED_LOG_WINDOW_MS));

  const arrived = (request: LoggedRequest, response: ServerResponse) => {
    request[LOG] = new RequestLog(performance.now(), ids(request));
    response.on('close', ended);
  };
  return {
    attach: (server) => void server.prependListener('request', arrived),
    // A request injected into Fastify (app.inject) never passes node:http's listener: it gets its id here.
    requestId: (request) => (request as LoggedRequest)[LOG]?.id ?? ids(request),
    childLogger: (_parent, bindings) => lazyChildLogger(logger, bindings),
    controller: new QuietController({ requestIdLogLabel: 'reqId' }),
  };
}

/** A route's first onRequest hook: its requests' access lines name it, with the field made once. */
export function logRoute(route: string): onRequestHookHandler {
  const field = `"route":${jsonString(route)}`;
  return (request, reply, done) => {
    const log = (request.raw as LoggedRequest)[LOG];
    if (log) {
      log.route = field;
      log.reply = reply;
    }
    done();
  };
}

/** For a request no route served: its access line gives the answer's length too. */
export function logUnrouted(request: FastifyRequest, reply: FastifyReply): void {
  const log = (request.raw as LoggedRequest)[LOG];
  if (log) log.reply = reply;
}

/** Fastify's request lines (received, completed, not found) are the access line's; its error lines stay. */
class QuietController extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(): void {}
  override routeNotFound(): void {}
}

const pathOf = (url: string): string => {
  const path = url.split('?', 1)[0]!;
  return path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}...` : path;
};

/**
 * The access line, as pino would write `logger.info({ reqId, method, route | path, status, ms, ip,
 * requestBytes, responseBytes }, 'request')`, built as one template. Through pino it cost some 5 us a
 * request, a quarter of a discovery request's whole CPU (0.61-0.65 of bare with pino's line made and
 * thrown away, 0.78 with no line); D16 wants the line cheap enough that the bench's targets hold at
 * `info`. Its fields are fixed, none can hold a header's or a body's secret, so it needs neither
 * pino's serializers nor its redaction. It is written to the destination handed to pino, with the
 * fields pino puts on every line (the level, the time, the base and the logger's bindings), so that it
 * is ordered and flushed with every other line.
 */
function accessLineWriter(logger: Logger, stream: DestinationStream, peers: ((address: string, hop: number) => boolean) | undefined, unansweredOnce: OncePerWindow): (this: ServerResponse) => void {
  const bindings = `,${JSON.stringify({ ...LOG_BASE, ...logger.bindings() }).slice(1, -1)}`;
  const [info, warn] = [logger.isLevelEnabled('info'), logger.isLevelEnabled('warn')];
  // The time as pino writes it (epoch milliseconds), its digits made once a millisecond: at load, many
  // lines share one, and a number this large is a heap number V8 formats afresh each time.
  let lastMs = 0;
  let time = '0';
  return function ended(this: ServerResponse): void {
    // The client went away before the answer was sent.
    const answered = this.writableFinished;
    if (!(answered ? info : warn)) return;
    const request = this.req as LoggedRequest;
    const log = request[LOG]!;
    // The method is one llhttp knows (letters and '-'): it needs no escaping. The route's pattern; the
    // path itself only when no route matched, without its query.
    const where = log.route ?? `"path":${jsonString(pathOf(request.url ?? ''))}`;
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      time = String(now);
    }
    const ms = Math.round((performance.now() - log.started) * 100) / 100;
    // Fastify hands its headers to writeHead, where node:http does not keep them.
    const lengths = length('requestBytes', request.headers['content-length']) + length('responseBytes', log.reply?.getHeader('content-length'));
    // The status sent: the response's, a refusal the node wrote on the socket itself (408 at a deadline,
    // 400 for a request node:http could not parse), or none when the client went away first.
    const sent = answered ? this.statusCode : (request.socket as Socket & { [STATUS_SENT_ON_SOCKET]?: number })[STATUS_SENT_ON_SOCKET];
    const status = sent === undefined ? '' : `"status":${sent},`;
    const msg = answered ? 'request' : sent === undefined ? 'request not answered' : 'request refused';
    const client = clientAddress(request, peers);
    // The socket's address is an IP literal; an address from X-Forwarded-For is whatever the header held.
    const ip = client === undefined ? '' : client === request.socket.remoteAddress ? `,"ip":"${client}"` : `,"ip":${jsonString(client)}`;
    let more = '';
    if (!answered) {
      const swallowed = unansweredOnce(`${sent ?? 'none'} ${client === undefined ? '' : addressKey(client)}`);
      if (swallowed === undefined) return;
      if (swallowed > 0) more = `,"moreSinceLastLine":${swallowed}`;
    }
    stream.write(
      `{"level":${answered ? 30 : 40},"time":${time}${bindings},"reqId":${jsonString(log.id)},"method":"${request.method}",${where},${status}"ms":${ms}${ip}${lengths}${more},"msg":"${msg}"}\n`,
    );
  };
}

/**
 * The client's address: none once the socket is gone (a connection dropped unanswered). Without
 * X-Forwarded-For it is the peer's whatever TRUST_PROXY says, as proxy-addr finds.
 */
const clientAddress = (request: IncomingMessage, peers: ((address: string, hop: number) => boolean) | undefined): string | undefined => {
  const peer = request.socket.remoteAddress;
  if (peer === undefined || peers === undefined || request.headers['x-forwarded-for'] === undefined) return peer;
  return proxyAddr(request, peers);
};

const length = (name: string, header: unknown): string => {
  if (header === undefined) return '';
  const value = Number(header);
  return `,"${name}":${Number.isFinite(value) ? value : null}`;
};

/**
 * The request's logger, made only when the request logs something beyond its access line (an error, a
 * replayed code): a pino child for every request would cost more than a cheap request's whole answer.
 */
const lazyChildLogger = (logger: FastifyBaseLogger, bindings: Record<string, unknown>): FastifyBaseLogger => new LazyChild(logger, bindings);

// A class, not an object of closures: one allocation a request.
class LazyChild {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Record<string, unknown>,
  ) {}

  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  fatal(...args: Parameters<FastifyBaseLogger['fatal']>) {
    this.real().fatal(...args);
  }
  error(...args: Parameters<FastifyBaseLogger['error']>) {
    this.real().error(...args);
  }
  warn(...args: Parameters<FastifyBaseLogger['warn']>) {
    this.real().warn(...args);
  }
  info(...args: Parameters<FastifyBaseLogger['info']>) {
    this.real().info(...args);
  }
  debug(...args: Parameters<FastifyBaseLogger['debug']>) {
    this.real().debug(...args);
  }
  trace(...args: Parameters<FastifyBaseLogger['trace']>) {
    this.real().trace(...args);
  }
  silent() {}
  child(...args: Parameters<FastifyBaseLogger['child']>) {
    return this.real().child(...args);
  }

  private real(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings));
  }
}

/**
 * Request ids: the X-Request-Id a trusted proxy sent (nginx's $request_id, so that its access log and
 * Portico's name a request alike), or this process's own, unique across nodes and restarts by a random prefix.
 */
function requestIds(trust: ProxyTrust, processId: string): (request: IncomingMessage) => string {
  const trusted = trustsPeer(trust);
  let next = 0;
  return (request) => {
    if (trusted(request.socket.remoteAddress ?? '')) {
      const incoming = request.headers['x-request-id'];
      if (typeof incoming === 'string' && INCOMING_ID.test(incoming)) return incoming;
    }
    return `${processId}-${(next++).toString(36)}`;
  };
}

/** The status a refusal written straight to a socket carried (a 408 at a deadline): the access line names it. */
export const STATUS_SENT_ON_SOCKET = Symbol('portico.statusSentOnSocket');

/** Fastify's `trustProxy`, as app.ts makes it from TRUST_PROXY. */
export type ProxyTrust = boolean | string[] | ((address: string, hop: number) => boolean);

/** Whether the peer itself (hop 0) is a proxy Fastify trusts: the header is only as good as who set it. */
export function trustsPeer(trust: ProxyTrust): (address: string) => boolean {
  const trusted = proxyTrustFunction(trust);
  return (address) => trusted(address, 0);
}

/** TRUST_PROXY as Fastify reads it for `request.ip`, so that the access line names the same client. */
function proxyTrustFunction(trust: ProxyTrust): (address: string, hop: number) => boolean {
  if (typeof trust === 'boolean') return () => trust;
  return typeof trust === 'function' ? trust : proxyAddr.compile(trust);
}
