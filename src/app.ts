// buildApp(deps): the Fastify instance with every route table mounted; it never listens.
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { contactDeps, type Deps } from './deps.js';
import { AppError } from './errors.js';
import { installErrorHandling } from './http/error-mapper.js';
import { mountRoutes } from './http/mount-routes.js';
import { contactRoutes } from './modules/contact/routes.js';
import { openApiRoutes } from './modules/discovery/routes.js';
import { healthRoutes } from './modules/health/routes.js';
import type { RouteSpec } from './route-spec.js';
import type { TrustProxy } from './config.js';

export async function buildApp(deps: Deps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    trustProxy: trustProxy(config.trustProxy),
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
  });

  await app.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    // Seconds, not a human string: Retry-After and RateLimit-Reset are integers (D9).
    errorResponseBuilder: (_request, context) =>
      new AppError('rate_limited', `rate limit of ${context.max} requests exceeded; retry in ${Math.ceil(context.ttl / 1000)} s`),
  });

  const routes: RouteSpec[] = [];
  routes.push(
    ...healthRoutes({ probes: { database: () => deps.inquiries.ping() } }),
    ...contactRoutes(contactDeps(deps)),
    ...openApiRoutes(config, () => routes),
  );
  const methodsByPath = mountRoutes(app, routes, {
    publicUrl: config.publicUrl,
    rateLimits: config.rateLimits,
    cors: config,
    tokens: deps.tokens,
  });
  installErrorHandling(app, (path) => methodsByPath.get(path));
  return app;
}

/** A hop count becomes the function proxy-addr applies to numbers: trust the nearest `hops` proxies. */
function trustProxy(setting: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting;
}
