// The Metrics port in Prometheus' text format (prom-client), served on a listener of its own
// (METRICS_HOST:METRICS_PORT) so that it is never on the public surface. Counts that live in the
// database (the delivery backlog) are read at scrape time; on several nodes each node serves its own
// counters and the same database figures.
import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../../ports/clock.js';
import { GENERAL, type InquiryStore } from '../../ports/inquiry-store.js';
import type { Metrics } from '../../ports/metrics.js';

export interface PrometheusMetrics extends Metrics {
  /** One answered HTTP request: `route` is the route's template (or `unmatched`), never the raw path. */
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  /** Serves GET /metrics on host:port until close(). */
  listen(host: string, port: number): Promise<{ port: number; close(): Promise<void> }>;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The Metrics port as prom-client series, with HTTP requests by route template; the backlog gauges read the
 * inquiry store at each scrape. Nothing is served until listen().
 */
export function prometheusMetrics(deps: { inquiries: Pick<InquiryStore, 'backlog'>; clock: Clock }): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Counter({ name, help, labelNames, registers: [registry] });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Histogram({ name, help, labelNames, buckets: LATENCY_BUCKETS, registers: [registry] });

  const requests = counter('portico_http_requests_total', 'HTTP requests answered, by route template, method and status.', ['route', 'method', 'status']);
  const requestSeconds = histogram('portico_http_request_duration_seconds', 'Time to answer an HTTP request, by route template and method.', ['route', 'method']);
  const limited = counter('portico_rate_limited_total', 'Requests and tool calls refused by a rate limit, by limit.', ['limit']);
  const accepted = counter('portico_inquiries_accepted_total', 'Inquiries stored for delivery, by channel (web, api, mcp) and topic (sales, demo, support, general).', ['channel', 'topic']);
  const outcomes = counter(
    'portico_inquiry_outcomes_total',
    'What became of inquiries, by channel and topic: a delivery attempt delivered, retrying or failed (no retry left), or kept as spam or as a duplicate.',
    ['channel', 'topic', 'outcome'],
  );
  const spamReasons = counter('portico_inquiry_spam_reasons_total', 'Reasons screening gave stored inquiries, by channel, reason and action (held as spam, or delivered marked).', [
    'channel',
    'reason',
    'action',
  ]);
  const attempts = counter('portico_delivery_attempts_total', 'Deliveries tried on one channel (mail, webhook), by result (ok, error).', ['channel', 'result']);
  const attemptSeconds = histogram('portico_delivery_duration_seconds', 'Time a delivery on one channel took, by channel.', ['channel']);
  const tokens = counter('portico_oauth_tokens_issued_total', 'Token responses issued, by grant type.', ['grant']);
  const backfillRows = new Gauge({
    name: 'portico_migration_backfill_remaining_rows',
    help: "Rows a migration's backfill has left to fill, by migration, on the node running it; 0 once it has finished.",
    labelNames: ['migration'],
    registers: [registry],
  });
  const registrations = counter('portico_oauth_clients_registered_total', 'OAuth clients registered by dynamic client registration (RFC 7591).', []);

  // One read of the database per scrape serves the three gauges. A database that does not answer must not
  // take the rest of the scrape with it: the process and HTTP series matter most then, and the backlog
  // gauges keep their last values while portico_database_up says they are stale.
  let backlog: Promise<Awaited<ReturnType<InquiryStore['backlog']>> | undefined> | undefined;
  const readBacklog = () =>
    (backlog ??= deps.inquiries
      .backlog()
      .catch(() => undefined)
      .finally(() => setImmediate(() => (backlog = undefined))));
  new Gauge({
    name: 'portico_database_up',
    help: "1 when the database answered this scrape's read of the delivery backlog, 0 when it did not (the backlog gauges then keep their last values).",
    registers: [registry],
    async collect() {
      this.set((await readBacklog()) === undefined ? 0 : 1);
    },
  });
  new Gauge({
    name: 'portico_inquiries_undelivered',
    help: 'Inquiries still to be delivered: pending (an attempt under way or stalled) or retrying.',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const read = await readBacklog();
      if (read === undefined) return;
      this.set({ state: 'pending' }, read.pending);
      this.set({ state: 'retrying' }, read.retrying);
    },
  });
  new Gauge({
    name: 'portico_oldest_undelivered_inquiry_age_seconds',
    help: 'Age of the oldest inquiry still to be delivered; 0 when there is none.',
    registers: [registry],
    async collect() {
      const read = await readBacklog();
      if (read === undefined) return;
      this.set(read.oldestCreatedAt === null ? 0 : Math.max(0, (deps.clock.now() - read.oldestCreatedAt) / 1000));
    },
  });

  return {
    httpRequest(route, method, status, seconds) {
      requests.inc({ route, method, status });
      requestSeconds.observe({ route, method }, seconds);
    },
    rateLimited: (limit) => limited.inc({ limit }),
    inquiryAccepted: (channel, topic) => accepted.inc({ channel, topic: topic ?? GENERAL }),
    inquiryOutcome: (channel, topic, outcome) => outcomes.inc({ channel, topic: topic ?? GENERAL, outcome }),
    inquirySpamReason: (channel, reason, action) => spamReasons.inc({ channel, reason, action }),
    deliveryAttempt(channel, ok, seconds) {
      attempts.inc({ channel, result: ok ? 'ok' : 'error' });
      attemptSeconds.observe({ channel }, seconds);
    },
    tokenIssued: (grant) => tokens.inc({ grant }),
    clientRegistered: () => registrations.inc(),
    backfillRemaining: (migration, rows) => backfillRows.set({ migration }, rows),
    listen: (host, port) => listen(registry, host, port),
  };
}

async function listen(registry: Registry, host: string, port: number) {
  const server: Server = createServer((request, response) => {
    const path = request.url?.split('?', 1)[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the metrics are at GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(request.method === 'HEAD' ? undefined : text),
      (error: unknown) => response.writeHead(503, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${(error as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A scraper keeps its connection open between scrapes: it need not hold up a shutdown.
        server.closeAllConnections();
      }),
  };
}
