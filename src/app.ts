// buildApp(deps): the Fastify instance with every route table mounted; it never listens.
import Fastify, { type FastifyInstance } from 'fastify';
import { contactDeps, type Deps } from './deps.js';
import { answerClientError, answerUnmetExpectation, BODY_TOO_SLOW, installErrorHandling, sendError, toAppError } from './http/error-mapper.js';
import { installFormParser } from './http/form-parser.js';
import { guardConnections, type ClosedReason } from './http/connection-limits.js';
import { InFlight } from './http/in-flight.js';
import { mountRoutes } from './http/mount-routes.js';
import { accessLog, trustsPeer, type ProxyTrust } from './http/request-log.js';
import { addressKey } from './http/rate-limit-key.js';
import { oncePerWindow } from './modules/common/once-per-window.js';
import { contactRoutes } from './modules/contact/routes.js';
import { docsRoutes } from './modules/discovery/docs-page.js';
import { discoveryRoutes, protectedResources } from './modules/discovery/metadata.js';
import { openApiRoutes } from './modules/discovery/routes.js';
import { serverCardRoutes } from './modules/discovery/server-card.js';
import { mcpRoutes } from './modules/mcp/routes.js';
import { metadataDocuments } from './modules/oauth/metadata-documents.js';
import { oauthRoutes } from './modules/oauth/routes.js';
import { embedRoutes } from './modules/contact-form/embed-routes.js';
import { homeRoutes } from './modules/discovery/home.js';
import { healthRoutes } from './modules/health/routes.js';
import type { RouteSpec } from './modules/common/route-spec.js';
import { strictTransportSecurity } from './http/strict-transport.js';
import { warnOnAliases } from './http/alias-warning.js';
import { publicOrigin } from './modules/common/public-origin.js';
import type { TrustProxy } from './config/config.js';
import { Shutdown } from './http/shutdown.js';

/**
 * Slowloris and stalled clients: a whole request may take 30 s (the slowest path waits on siteverify
 * twice and on SMTP), and its headers 10 s; connections are checked every second, so a stalled one
 * is answered 408 and closed within a second of its deadline (node:http checks every 30 s by default).
 */
export const HTTP_TIMEOUTS = {
  requestMs: 30_000,
  headersMs: 10_000,
  checkEveryMs: 1_000,
  /**
   * A connection with a request underway on which no byte moves either way for 35 s is closed: a peer that
   * stopped reading its answers, or one that went away without a word. Longer than the request's 30 s, so
   * that a body that stalls is answered 408 at its deadline first. The slowest handler needs about 21 s.
   */
  idleMs: 35_000,
  /**
   * An idle keep-alive connection is closed after 72 s: longer than the 60 s nginx and most load balancers
   * keep an idle upstream connection, so that the proxy always closes first and never sends a request down a
   * connection the node is closing (a 502). Exposed without a proxy, each idle connection counts against
   * MAX_CONNECTIONS meanwhile.
   */
  keepAliveMs: 72_000,
};

/**
 * The Fastify instance with every route table, the rate limits, the error body and the access lines; it
 * never listens. Its close() waits for every handler, even one whose client went away.
 */
export async function buildApp(deps: Deps, timeouts: typeof HTTP_TIMEOUTS = HTTP_TIMEOUTS, shutdown = new Shutdown()): Promise<FastifyInstance> {
  const { config } = deps;
  const trust = trustProxy(config.trustProxy);
  // Fastify itself gets no logger: the access line is written beside it (request-log.ts). With logging
  // off, no request id is made either.
  const access = deps.logger.level === 'silent' ? undefined : accessLog(deps.logger, deps.logDestination, trust, deps.random.bytes(4).toString('hex'), deps.clock);
  const app = Fastify({
    ...(access && { logController: access.controller, childLoggerFactory: access.childLogger, genReqId: access.requestId }),
    trustProxy: trust,
    bodyLimit: 1024 * 1024,
    // A request that reaches a closing node gets Portico's own answer (shutdown.ts), not Fastify's.
    return503OnClosing: false,
    requestTimeout: timeouts.requestMs,
    connectionTimeout: timeouts.idleMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: { headersTimeout: timeouts.headersMs, connectionsCheckingInterval: timeouts.checkEveryMs },
    // Errors Fastify raises before routing (a malformed URL) get the one error body too (D9).
    frameworkErrors: (error, _request, reply) => void sendError(reply, toAppError(error)),
    // Routes validate with Zod (src/http/mount-routes.ts) and give Fastify no schema: its Ajv and
    // fast-json-stringify compilers, which it would load at start, are never needed.
    schemaController: { compilersFactory: { buildValidator: noFastifySchemas, buildSerializer: noFastifySchemas } },
    // ... and so do the requests node:http's parser refuses before Fastify sees them.
    clientErrorHandler: (error: Error & { code?: string }, socket) => {
      if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') closed('deadline', socket.remoteAddress ?? '');
      answerClientError(error, socket);
    },
  });
  access?.attach(app.server);
  app.server.on('checkExpectation', answerUnmetExpectation);
  // A trusted proxy's connections carry many clients: its own limit per client (docs/deploy.md) stands in.
  const uncapped = trustsPeer(trust);
  const closed = connectionsClosedLog(deps, uncapped);
  guardConnections(app.server, {
    maxConnections: config.maxConnections,
    maxPerAddress: config.maxConnectionsPerAddress,
    minBodyRate: config.minBodyRate,
    refuseSlowBody: (socket) => answerClientError(Object.assign(new Error('request body too slow'), { code: BODY_TOO_SLOW }), socket),
    uncapped,
    closed,
    clock: deps.clock,
  });

  const { prometheus } = deps;
  if (prometheus) {
    // The time from the request's arrival at the routes to its answer leaving: taken here, not from
    // reply.elapsedTime, which Fastify only keeps when it logs requests itself (it does not: request-log.ts).
    app.decorateRequest('arrivedAt', 0);
    app.addHook('onRequest', (request, _reply, done) => {
      request.arrivedAt = performance.now();
      done();
    });
    // The route's template (closed set), never the raw path: a client cannot add series. Counted as
    // the answer leaves (onSend): onResponse would make Fastify listen for every response's end.
    app.addHook('onSend', (request, reply, payload, done) => {
      prometheus.httpRequest(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, (performance.now() - request.arrivedAt) / 1000);
      done(null, payload);
    });
  }

  installFormParser(app);

  const routes: RouteSpec[] = [];
  // Read on first use, once every table is mounted.
  let protectedList: ReturnType<typeof protectedResources> | undefined;
  const resources = () => (protectedList ??= protectedResources(routes, config.publicUrl));
  routes.push(
    ...healthRoutes({ probes: { database: () => deps.engine.writable() }, shuttingDown: () => shutdown.phase !== 'serving' }),
    ...contactRoutes(contactDeps(deps)),
    ...mcpRoutes(contactDeps(deps), { publicUrl: config.publicUrl, allowedOrigins: config.mcpAllowedOrigins, privacyPolicyUrl: config.privacyPolicyUrl }),
    ...oauthRoutes({
      store: deps.oauth,
      clock: deps.clock,
      random: deps.random,
      issuer: config.publicUrl,
      resources,
      metrics: deps.metrics,
      metadataDocuments: deps.clientMetadata && metadataDocuments(deps.clientMetadata, deps.clock, config.cimd, deps.logger),
    }),
  );
  routes.push(
    ...discoveryRoutes(() => routes, config.publicUrl, { clientIdMetadataDocuments: deps.clientMetadata !== undefined }),
    ...serverCardRoutes(config.publicUrl),
    ...openApiRoutes(config, () => routes),
  );
  routes.push(
    ...homeRoutes(config.publicUrl),
    ...docsRoutes(),
    ...embedRoutes({ publicUrl: config.publicUrl, turnstileSiteKey: config.turnstile?.siteKey, privacyPolicyUrl: config.privacyPolicyUrl }),
  );
  const inFlight = new InFlight();
  app.addHook('onRequest', shutdown.onRequest);
  const origin = publicOrigin(config.publicUrl);
  const aliasWarning = warnOnAliases(origin, deps.logger);
  if (aliasWarning) app.addHook('onRequest', aliasWarning);
  // Only a node whose clients reach it over https can be told so; an http one pays nothing.
  if (config.publicUrl.startsWith('https:')) app.addHook('onRequest', strictTransportSecurity);
  const methodsByPath = mountRoutes(app, routes, {
    origin,
    rateLimits: config.rateLimits,
    counters: deps.rateLimitCounters,
    rateLimited: (name) => deps.metrics.rateLimited(name),
    cors: config,
    tokens: deps.tokens,
    inFlight,
  });
  // close() resolves once every handler has finished, including those whose client went away
  // (an inquiry being sent is recorded as sent before the stores close).
  app.addHook('onClose', () => inFlight.idle());
  // After server.close(), node:http keeps a keep-alive connection whose request was underway open for
  // the keep-alive time (72 s), and close() with it: such a connection goes once its answer is sent.
  let idle: NodeJS.Timeout | undefined;
  app.addHook('preClose', (done) => {
    shutdown.close();
    idle = setInterval(() => app.server.closeIdleConnections(), 100).unref();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    clearInterval(idle);
    done();
  });
  installErrorHandling(app, (path) => methodsByPath.get(path));
  // Discovery documents are serialized now, not by the first request that asks for one.
  for (const spec of routes) spec.prepare?.();
  return app;
}

/** How long the log stays quiet about one address's closed connections after a line about them. */
const CLOSED_LOG_WINDOW_MS = 60_000;

const CLOSED_WHY: Record<ClosedReason | 'deadline' | 'pipelining-proxy', (config: Deps['config']) => string> = {
  'address-cap': (config) => `MAX_CONNECTIONS_PER_ADDRESS (${config.maxConnectionsPerAddress}) open from one address and none idle`,
  'node-full': (config) => `MAX_CONNECTIONS (${config.maxConnections}) open and none idle`,
  'made-room': (config) => `the oldest idle connection, closed to make room at MAX_CONNECTIONS (${config.maxConnections}) or MAX_CONNECTIONS_PER_ADDRESS (${config.maxConnectionsPerAddress})`,
  pipelining: () => 'more pipelined answers queued than the node keeps for one connection; its address is barred for a minute',
  // A trusted proxy is never barred: its connections carry every client.
  'pipelining-proxy': () => 'more pipelined answers queued than the node keeps for one connection of a trusted proxy, which is not barred',
  barred: () => 'the address pipelined more requests than it read answers to, within the last minute',
  'slow-body': (config) => `a request body slower than MIN_BODY_RATE (${config.minBodyRate} bytes a second) after its first 5 s (408)`,
  'made-room-slow-body': (config) => `the connection that had waited longest on a request body, closed to make room at MAX_CONNECTIONS (${config.maxConnections}) with none idle (408)`,
  deadline: () => 'headers or body not received in time (408)',
};

/**
 * One warning line per address, reason and minute for the connections the node closes to keep its bounds:
 * a flood of them is one line with a count, not a line a socket.
 */
function connectionsClosedLog(deps: Deps, uncapped: (address: string) => boolean): (reason: ClosedReason | 'deadline', address: string) => void {
  const once = oncePerWindow(deps.clock, CLOSED_LOG_WINDOW_MS);
  return (reason, address) => {
    const key = addressKey(address);
    const more = once(`${reason} ${key}`);
    if (more === undefined) return;
    const line = { address: key, reason, ...(more > 0 && { closedSinceLastLine: more }) };
    const why = reason === 'pipelining' && uncapped(address) ? 'pipelining-proxy' : reason;
    deps.logger[reason === 'made-room' ? 'info' : 'warn'](line, `connection closed: ${CLOSED_WHY[why](deps.config)}`);
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** performance.now() when the request reached the routes' hooks; set only when metrics are on. */
    arrivedAt: number;
  }
}

function noFastifySchemas(): never {
  throw new Error('Fastify schemas are not used: routes validate with Zod in src/http/mount-routes.ts');
}

/** A hop count becomes the function proxy-addr applies to numbers: trust the nearest `hops` proxies. */
function trustProxy(setting: TrustProxy): ProxyTrust {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting;
}
