// `portico serve`: environment -> config -> deps -> listen, and a graceful shutdown on SIGTERM/SIGINT.
import { setTimeout as pause } from 'node:timers/promises';
import { buildApp, HTTP_TIMEOUTS } from './app.js';
import type { Config } from './config/config.js';
import { runBackfills } from './adapters/sql/migration-runner.js';
import { Shutdown } from './http/shutdown.js';
import { startBackgroundJobs } from './background-jobs.js';
import { buildDeps, contactDeps, type Deps } from './deps.js';
import { deliverWaiting } from './modules/contact/redeliver.js';
import { applyRetention, RETENTION_INTERVAL_MS } from './modules/contact/retention.js';

// Within the 10 s a container runtime waits before SIGKILL: deliveries and acknowledgements get 6 s
// to finish, then the e-mails and webhook calls still waiting (a stuck relay holds one for up to 14 s,
// a stuck endpoint for 10) give up, their requests are answered 502 and their inquiries left to the
// retry job; at 9 s every connection goes.
const SHUTDOWN_GRACE_MS = 9_000;
const DELIVERY_GRACE_MS = 6_000;

// D6: clients that never obtained a token go after a day; clients unused for 90 days go too.
const CLIENT_RETENTION = { neverUsedClientMs: 86_400_000, unusedClientMs: 90 * 86_400_000 };

// A node that finds a backfill leased to another asks again this often, and takes it over from one that stopped.
const BACKFILL_INTERVAL_MS = 30_000;
// Between two batches of a backfill the database is left to requests for this long.
const BACKFILL_PAUSE_MS = 20;

/** Runs the backfills not finished, while this node holds their lease; logs each one it finishes. */
async function backfill(deps: Deps, holder: string, signal: AbortSignal): Promise<void> {
  await runBackfills(deps.engine, {
    leases: deps.leases,
    holder,
    now: () => deps.clock.now(),
    signal,
    pauseMs: BACKFILL_PAUSE_MS,
    progress: (name, remaining) => deps.metrics.backfillRemaining(name, remaining),
    finished: (name) => deps.logger.info({ migration: name }, 'migration backfill finished'),
  });
}

function deliveryChannels(config: Readonly<Config>): string[] {
  const { smtp, webhook } = config.delivery;
  return [...(smtp ? ['smtp'] : webhook ? [] : ['outbox']), ...(webhook ? ['webhook'] : [])];
}

/**
 * `portico serve`: builds the app, starts the background jobs and listens, metrics first. On SIGTERM or SIGINT
 * it finishes the requests in flight, gives up deliveries still waiting, then closes the stores.
 */
export async function serve(config: Readonly<Config>): Promise<void> {
  const deps = await buildDeps(config);
  const phase = new Shutdown();
  const app = await buildApp(deps, HTTP_TIMEOUTS, phase);
  const checkpoints = deps.engine.serveInBackground(deps.logger);
  const holder = deps.random.bytes(8).toString('hex');
  const jobs = startBackgroundJobs(deps, [
    // D22: the backfills of this release's migrations, in batches beside the requests, on one node at a time.
    { name: 'schema-backfills', intervalMs: BACKFILL_INTERVAL_MS, run: (signal) => backfill(deps, holder, signal) },
    // D15: due retries and attempts a stopped process left, every few seconds, so the first retry comes within 30 s.
    { name: 'deliver-waiting-inquiries', intervalMs: 5_000, run: () => deliverWaiting(contactDeps(deps)) },
    { name: 'purge-expired-oauth-state', intervalMs: 600_000, run: () => deps.oauth.purgeExpired(deps.clock.now(), CLIENT_RETENTION) },
    { name: 'retention', intervalMs: RETENTION_INTERVAL_MS, run: (signal) => applyRetention({ ...deps, holder, log: deps.logger }, config.retention, signal) },
  ]);
  // The metrics listener first: a start that fails on either port leaves nothing listening.
  const metricsServer = config.metrics && (await deps.prometheus!.listen(config.metrics.host, config.metrics.port));
  try {
    // D19: a burst of newcomers up to MAX_CONNECTIONS waits in the node's own line, not in the kernel's.
    // Past the listen backlog (node's default 511), a connection's handshake is dropped and its client
    // retries after 1 s and then 3 s (RFC 6298 §2): 1,000 clients connecting at once saw 3-4 s at p99.
    // The kernel caps it at net.core.somaxconn (4,096 by default).
    await app.listen({ port: config.port, host: config.host, backlog: config.maxConnections });
  } catch (error) {
    await Promise.all([metricsServer?.close(), checkpoints?.stop()]);
    throw error;
  }
  if (metricsServer) deps.logger.info({ metrics: `http://${config.metrics.host}:${metricsServer.port}/metrics` }, 'serving metrics');
  deps.logger.info({ publicUrl: config.publicUrl, env: config.appEnv, database: config.database.engine, delivery: deliveryChannels(config) }, 'portico is serving');
  if (config.appEnv === 'production' && config.privacyPolicyUrl === undefined) {
    deps.logger.warn("PRIVACY_POLICY_URL is unset: the contact forms ask visitors to accept a privacy policy they cannot open; set it to the policy's https address");
  }
  if (config.retention.inquiryMs === undefined) deps.logger.warn('INQUIRY_RETENTION=off: inquiries are kept until deleted by hand (portico inquiries purge)');
  if (config.retention.spamMs === undefined) deps.logger.warn('SPAM_RETENTION=off: spam is kept until deleted by hand (portico inquiries purge)');
  const { smtp, webhook, acknowledge, dkim } = config.delivery;
  // With only a webhook there is no mail channel: settings that shape e-mail would silently do nothing.
  if (!smtp && webhook) {
    if (acknowledge) deps.logger.warn('MAIL_ACKNOWLEDGE=on, but no mail channel is set (only WEBHOOK_URL): no acknowledgement is sent; set SMTP_URL to send them');
    if (dkim) deps.logger.warn('DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE are set, but no mail channel is (only WEBHOOK_URL): nothing is signed; set SMTP_URL, or remove them');
  }
  if (config.appEnv === 'production' && !config.turnstile) {
    deps.logger.warn('Turnstile is off (TURNSTILE_SITE_KEY and TURNSTILE_SECRET_KEY unset): browsers send inquiries without a human check, limited only by RATE_LIMITS');
  }
  // Lines are written in batches (deps.ts): the operator who just started the server sees these at once.
  deps.logger.flush();

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    // D22: /readyz answers 503 at once; a balancer that checks it takes the node out while it still serves.
    phase.drain();
    if (config.shutdownDrainMs) {
      deps.logger.info({ signal, drainSeconds: config.shutdownDrainMs / 1000 }, 'shutting down: /readyz answers 503; serving for SHUTDOWN_DRAIN before closing');
      deps.logger.flush();
      await pause(config.shutdownDrainMs);
    }
    deps.logger.info({ signal }, 'shutting down: finishing in-flight requests');
    // Keep-alive connections go as soon as their request is answered (app.ts); after 9 s, all of them go.
    const deadline = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    const abandon = setTimeout(() => {
      deps.logger.warn('shutting down: deliveries still waiting are given up; their inquiries are kept and retried by the next process');
      deps.mailer?.abandon();
      deps.webhook?.abandon();
    }, DELIVERY_GRACE_MS);
    await Promise.all([app.close(), metricsServer?.close()]);
    // Acknowledgements the requests did not wait for, given up with the deliveries at DELIVERY_GRACE_MS.
    await deps.pending.finished();
    clearTimeout(deadline);
    clearTimeout(abandon);
    await jobs.stop();
    await checkpoints?.stop();
    await deps.close();
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
