// Turns route tables into Fastify routes: content type, rate limit, CORS, Bearer, validation, reply.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, preParsingHookHandler, RouteOptions } from 'fastify';
import { AppError, type ErrorCode } from '../errors.js';
import type { Principal, TokenVerifier } from '../ports/token-verifier.js';
import type { LimitName, RateLimits } from '../config/rate-limits.js';
import type { BodyType, Reply, RequestInput, RouteSpec } from '../modules/common/route-spec.js';
import { verifyBearer } from './bearer.js';
import type { PublicOrigin } from '../modules/common/public-origin.js';
import { describeIssues, validate, type Issues } from '../modules/common/schema-issues.js';
import { corsHeaders, preflightHeaders, type CorsSettings } from './cors.js';
import type { InFlight } from './in-flight.js';
import { logRoute } from './request-log.js';
import { rateLimitHook } from './route-rate-limit.js';
import type { CounterStore } from '../ports/rate-limiter.js';

export interface MountSettings {
  origin: PublicOrigin;
  rateLimits: RateLimits;
  /** Where the routes' rate limits are counted: this process, or Redis for every node. */
  counters: CounterStore;
  /** Told of each request a rate limit refused (metrics). */
  rateLimited: (name: LimitName) => void;
  cors: CorsSettings;
  tokens: TokenVerifier;
  /** Counts the handlers that have not finished, for shutdown. */
  inFlight: InFlight;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set from RouteSpec.jsonRpc; read by the error mapper. */
    jsonRpc?: boolean;
  }
}

/** Mounts the routes; returns the methods served on each path (for 405 answers). */
export function mountRoutes(app: FastifyInstance, routes: readonly RouteSpec[], settings: MountSettings): Map<string, string[]> {
  const methodsByPath = new Map<string, string[]>();
  for (const spec of routes) {
    methodsByPath.set(spec.path, [...(methodsByPath.get(spec.path) ?? []), spec.method]);
    app.route(toFastifyRoute(spec, settings));
  }
  for (const [path, methods] of methodsByPath) {
    const policy = routes.find((r) => r.path === path && r.cors)?.cors;
    if (!policy) continue;
    // CORS preflight (Fetch standard, CORS protocol): 204, never rate limited.
    const served = [...methods];
    app.options(path, { onRequest: logRoute(path) }, async (request, reply) => {
      reply
        .code(204)
        .headers(preflightHeaders(policy, request.headers.origin, served, settings.cors))
        .send();
    });
    methods.push('OPTIONS');
  }
  return methodsByPath;
}

function toFastifyRoute(spec: RouteSpec, settings: MountSettings): RouteOptions {
  // Callback-style hooks: an async one costs a promise and a microtask turn on every request.
  const onRequest: onRequestHookHandler[] = [logRoute(spec.path)];
  if (spec.cors) {
    const policy = spec.cors;
    // A public policy answers every Origin alike: its headers are made once.
    const fixed = policy === 'public' ? corsHeaders(policy, undefined, settings.cors) : undefined;
    onRequest.push((request, reply, done) => {
      reply.headers(fixed ?? corsHeaders(policy, request.headers.origin, settings.cors));
      done();
    });
  }
  // Last, as the other hooks only add headers: a refusal carries them too.
  const limit = spec.limit && settings.rateLimits[spec.limit];
  if (limit) onRequest.push(rateLimitHook(spec.limit!, limit, settings.counters, settings.rateLimited));
  const { inFlight } = settings;
  const publicUrl = settings.origin.url;
  const target = { resource: `${publicUrl}${spec.path}`, metadataUrl: `${publicUrl}/.well-known/oauth-protected-resource${spec.path}`, origin: settings.origin };

  return {
    method: spec.method,
    url: spec.path,
    bodyLimit: spec.bodyLimitBytes,
    config: { jsonRpc: spec.jsonRpc === true },
    onRequest,
    preParsing: spec.body ? [requireContentType(spec.bodyTypes ?? ['json'])] : [],
    // Fastify waits for the returned reply; an error thrown here goes to the one error handler (D9).
    handler: async (request, reply) => {
      let answer: Reply;
      inFlight.begin();
      try {
        const header = spec.auth ? request.headers.authorization : undefined;
        // RFC 6750: a presented token is checked before the request's input.
        const principal = header === undefined ? undefined : await verifyBearer(header, spec.auth!, target, settings.tokens, request.headers.host);
        answer = await spec.handler(input(spec, request, principal));
      } finally {
        inFlight.end();
      }
      return send(reply, answer);
    },
  };
}

/** The validated input; a request that fails validation is refused with every problem at once. */
function input(spec: RouteSpec, request: FastifyRequest, principal: Principal | undefined): RequestInput<unknown> {
  let body: unknown;
  if (spec.body) {
    const result = validate(spec.body, request.body);
    if (result.issues) throw refusal(result.issues, spec.invalidBodyCode);
    body = result.value;
  }
  let query = request.query as Record<string, unknown>;
  if (spec.query) {
    const result = validate(spec.query, request.query);
    if (result.issues) throw refusal(result.issues);
    query = result.value as Record<string, unknown>;
  }
  return { body, query, headers: request.headers, ip: request.ip, principal, log: request.log };
}

function send(reply: FastifyReply, result: Reply): FastifyReply {
  // Every answer is exactly what its Content-Type says: no browser may sniff a JSON body into a script.
  reply.code(result.status).header('x-content-type-options', 'nosniff');
  if (result.headers) reply.headers(result.headers);
  if (result.contentType) reply.type(result.contentType);
  return reply.send(result.body);
}

const MEDIA_TYPES: Record<BodyType, string> = { json: 'application/json', form: 'application/x-www-form-urlencoded' };

/** Contract: another content type gives 415, checked before the body is read. */
function requireContentType(types: readonly BodyType[]): preParsingHookHandler {
  const accepted = types.map((type) => MEDIA_TYPES[type]);
  return (request, _reply, payload, done) => {
    const header = request.headers['content-type'];
    // The usual header is exactly the media type: nothing to take apart.
    if (header !== undefined && accepted.includes(header)) return done(null, payload);
    const mediaType = header?.split(';', 1)[0]?.trim().toLowerCase();
    if (!mediaType || !accepted.includes(mediaType)) {
      done(new AppError('unsupported_media_type', `Content-Type must be ${accepted.join(' or ')}${mediaType ? ` (got ${mediaType})` : ''}`));
      return;
    }
    done(null, payload);
  };
}

/** Every problem at once, so a client can fix its request in one round trip. */
function refusal(issues: Issues, code: ErrorCode = 'invalid_request'): AppError {
  return new AppError(code, describeIssues(issues));
}
