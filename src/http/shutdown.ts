// A node on its way out (D22). After SIGTERM it drains for SHUTDOWN_DRAIN: it still serves, but /readyz
// answers 503 so that a balancer that checks it takes the node out, and each answer closes its connection
// (`Connection: close`), so that a proxy's kept-alive connections end with their request instead of
// carrying another to a node about to stop. Then it closes: it takes no new connection (a proxy tries the
// next node, the request unsent), finishes the requests under way, and answers any other request that
// still reaches it with Portico's own error body, shutting_down, never Fastify's.
import type { onRequestHookHandler } from 'fastify';
import { AppError } from '../errors.js';

export type ShutdownPhase = 'serving' | 'draining' | 'closing';

// A request refused by a closing node is safe to send again at once: another node takes it.
const RETRY_AFTER_SECONDS = '1';

export class Shutdown {
  #phase: ShutdownPhase = 'serving';

  get phase(): ShutdownPhase {
    return this.#phase;
  }

  /** /readyz answers 503 from now on, and each answer closes its connection; requests are still served. */
  drain(): void {
    if (this.#phase === 'serving') this.#phase = 'draining';
  }

  /** No request is served from now on: those that still arrive are answered shutting_down. */
  close(): void {
    this.#phase = 'closing';
  }

  /** The hook that answers for the phase: nothing while serving, the connection closed while draining, a refusal once closing. */
  readonly onRequest: onRequestHookHandler = (_request, reply, done) => {
    if (this.#phase === 'serving') return done();
    reply.header('connection', 'close');
    if (this.#phase === 'draining') return done();
    done(new AppError('shutting_down', 'this node is shutting down; send the request again (another node takes it)', { 'retry-after': RETRY_AFTER_SECONDS, connection: 'close' }));
  };
}
