// Request logs as nginx writes them: one access line per answered request, and the request's id on
// every line a request logs. Fastify's own two lines a request (received, completed) are replaced
// through its documented LogController.
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import proxyAddr from '@fastify/proxy-addr';
import type { Logger } from 'pino';

/** The longest path an access line holds for a request no route served (probes send long ones). */
const MAX_LOGGED_PATH = 200;
/** An X-Request-Id from a trusted proxy: 1-128 visible ASCII characters (nginx's $request_id is 32 hex). */
const INCOMING_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The access line: method, route, status, duration, request id, client IP and the bodies' lengths.
 * Never the query string (a client may put a token there), a header or a body.
 */
export class AccessLog extends LogController {
  private readonly log: Logger;

  constructor(logger: Logger) {
    super({ requestIdLogLabel: 'reqId' });
    // Without the redaction paths, which cost more than the rest of the line: its fields are fixed
    // below, and none can hold a header or a body (pino's documented way: an empty `redact` on the child).
    this.log = logger.child({}, { redact: [] });
  }

  override incomingRequest(): void {}

  /** The access line says it: a 404 is a status like any other. */
  override routeNotFound(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url;
    const line = {
      reqId: request.id,
      method: request.method,
      // The route's pattern; the path itself only when no route matched, without its query.
      route,
      path: route === undefined ? pathOf(request.url) : undefined,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
      ip: request.ip,
      requestBytes: length(request.headers['content-length']),
      responseBytes: length(reply.getHeader('content-length')),
    };
    // An error here is the connection's (the client went away before the answer was sent).
    if (error) this.log.warn({ ...line, err: error }, 'request not answered');
    else this.log.info(line, 'request');
  }
}

const pathOf = (url: string): string => {
  const path = url.split('?', 1)[0]!;
  return path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}...` : path;
};

const length = (header: unknown): number | undefined => (header === undefined ? undefined : Number(header));

/**
 * The request's logger, made only when the request logs something beyond its access line (an error, a
 * replayed code): a pino child for every request would cost more than a cheap request's whole answer.
 */
export const lazyChildLogger = (logger: FastifyBaseLogger, bindings: Record<string, unknown>): FastifyBaseLogger => new LazyChild(logger, bindings) as unknown as FastifyBaseLogger;

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
export function requestIds(trust: ProxyTrust, processId: string): (request: IncomingMessage) => string {
  const trusted = trustsPeer(trust);
  let next = 0;
  return (request) => {
    const incoming = request.headers['x-request-id'];
    if (typeof incoming === 'string' && INCOMING_ID.test(incoming) && trusted(request.socket.remoteAddress ?? '')) return incoming;
    return `${processId}-${(next++).toString(36)}`;
  };
}

/** Fastify's `trustProxy`, as app.ts makes it from TRUST_PROXY. */
export type ProxyTrust = boolean | string[] | ((address: string, hop: number) => boolean);

/** Whether the peer itself (hop 0) is a proxy Fastify trusts: the header is only as good as who set it. */
function trustsPeer(trust: ProxyTrust): (address: string) => boolean {
  if (typeof trust === 'boolean') return () => trust;
  const trusted = typeof trust === 'function' ? trust : proxyAddr.compile(trust);
  return (address) => trusted(address, 0);
}
