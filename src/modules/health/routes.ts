// Liveness and readiness probes for load balancers and orchestrators.
import * as z from 'zod';
import { AppError } from '../../errors.js';
import { route, type RouteSpec } from '../common/route-spec.js';

export interface HealthDeps {
  /** Each store answers or throws. */
  probes: Readonly<Record<string, () => Promise<void>>>;
  /** True once the node was told to stop (SIGTERM): it is to be taken out of the balancer. */
  shuttingDown(): boolean;
}

const Status = z.object({ status: z.string() }).meta({ id: 'HealthStatus', examples: [{ status: 'ok' }] });

/**
 * GET /healthz, 200 whenever the process answers, and GET /readyz, 503 shutting_down from the moment the
 * node is told to stop (D22), else 503 not_ready naming the first probe that throws.
 */
export function healthRoutes(deps: HealthDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/healthz',
      operationId: 'getLiveness',
      summary: 'Liveness: 200 once the process listens',
      tags: ['operations'],
      responses: { 200: { description: 'The process is up.', schema: Status } },
      handler: async () => ({ status: 200, body: { status: 'ok' }, headers: { 'cache-control': 'no-store' } }),
    }),
    route({
      method: 'GET',
      path: '/readyz',
      operationId: 'getReadiness',
      summary: 'Readiness: 200 when every store answers',
      tags: ['operations'],
      responses: { 200: { description: 'Every store answers.', schema: Status } },
      errors: ['not_ready', 'shutting_down'],
      async handler() {
        if (deps.shuttingDown()) throw new AppError('shutting_down', 'this node is shutting down', { 'retry-after': '1' });
        for (const [name, probe] of Object.entries(deps.probes)) {
          try {
            await probe();
          } catch {
            throw new AppError('not_ready', `${name} does not answer`, { 'retry-after': '5' });
          }
        }
        return { status: 200, body: { status: 'ready' }, headers: { 'cache-control': 'no-store' } };
      },
    }),
  ];
}
