// Picks and builds the adapters the configuration asks for; the only module that knows them all.
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { LOG_BASE, logLines } from './adapters/log-lines.js';
import { redisRateLimitStore } from './adapters/redis/rate-limit-store.js';
import { openDatabase, openDatabaseToInspect, type Engine } from './adapters/sql/database.js';
import { migrateSchema, schemaStatus, SchemaError, type SchemaStatus } from './adapters/sql/migration-runner.js';
import type { PrometheusMetrics } from './adapters/metrics/prometheus.js';
import { httpsMetadataFetcher, type ResolvedAddress } from './adapters/client-metadata/https-fetcher.js';
import { outboxMailer, removeOutboxCopies } from './adapters/mail/outbox-mailer.js';
import { smtpMailer } from './adapters/mail/smtp-mailer.js';
import { standardWebhookSender } from './adapters/webhook/standard-webhooks.js';
import { siteverifyHumanCheck } from './adapters/turnstile/siteverify.js';
import { isTurnstileTestSecret, type Config } from './config/config.js';
import { memoryCounters } from './adapters/memory-counters.js';
import { storeRateLimiter } from './http/store-rate-limiter.js';
import { Admission, type AdmissionLimits } from './modules/contact/admission.js';
import { AnswerFloor } from './modules/contact/answer-floor.js';
import type { ContactDeps, Screening } from './modules/contact/submit.js';
import { localScreening } from './modules/contact/screening.js';
import { akismetSpamCheck } from './adapters/akismet/comment-check.js';
import { storedTokenVerifier } from './modules/oauth/verify-bearer.js';
import type { OAuthStore } from './ports/oauth-store.js';
import type { ClientMetadataFetcher } from './ports/client-metadata.js';
import { systemClock, type Clock } from './ports/clock.js';
import type { HumanCheck } from './ports/human-check.js';
import type { InquiryStore } from './ports/inquiry-store.js';
import type { JobLeases } from './ports/job-leases.js';
import type { Mailer } from './ports/mailer.js';
import { PendingWork } from './pending-work.js';
import { noMetrics, type Metrics } from './ports/metrics.js';
import type { CounterStore, RateLimiter } from './ports/rate-limiter.js';
import type { WebhookSender } from './ports/webhook.js';
import { cryptoRandom, type Random } from './ports/random.js';
import type { TokenVerifier } from './ports/token-verifier.js';

/** Where messages go without SMTP_URL (development), relative to the working directory. */
export const OUTBOX_DIR = join('data', 'outbox');

export interface Deps {
  config: Readonly<Config>;
  clock: Clock;
  random: Random;
  logger: Logger;
  /** Where the logger writes: the access lines go there too, in order with the rest (request-log.ts). */
  logDestination: pino.DestinationStream;
  /** The database, its engine chosen when it was opened. */
  engine: Engine;
  inquiries: InquiryStore;
  oauth: OAuthStore;
  leases: JobLeases;
  /** Removes the outbox copies of these inquiries' e-mails (the outbox folder), whatever the mail channel now. */
  removeOutboxCopies(ids: readonly string[]): Promise<void>;
  /** The e-mail channel: SMTP, or the outbox folder when no channel is configured; undefined with only a webhook. */
  mailer: Mailer | undefined;
  webhook: WebhookSender | undefined;
  humanCheck: HumanCheck | undefined;
  tokens: TokenVerifier;
  /** Fetches client ID metadata documents (D13); undefined when CIMD=off. */
  clientMetadata: ClientMetadataFetcher | undefined;
  /** The routes' rate-limit counters: in Redis shared by every node (REDIS_URL), else in this process. */
  rateLimitCounters: CounterStore;
  /** The same counters, for limits counted outside a route (the contact tool's, D14). */
  limiter: RateLimiter;
  /** The inquiries this node works on at once (D19). */
  admission: Admission;
  /** What requests started without waiting for it (acknowledgements): waited for before the stores close. */
  pending: PendingWork;
  /** Duplicates and spam (D20). */
  screening: Screening;
  metrics: Metrics;
  /** The metrics in Prometheus' format when METRICS_PORT is set: HTTP requests are counted and /metrics served. */
  prometheus: PrometheusMetrics | undefined;
  close(): Promise<void>;
}

export interface DepsOptions {
  clock?: Clock;
  random?: Random;
  /** Where log lines go (tests capture them); stdout by default. */
  logDestination?: pino.DestinationStream;
  outboxDir?: string;
  humanCheckTimeoutMs?: number;
  /** How metadata document hosts are resolved (tests answer as a rebinding DNS server would); the system's by default. */
  resolveHost?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** A CA (PEM) the metadata document fetch trusts besides Node's, for tests in one process. */
  metadataDocumentCa?: string;
  /** Inquiries worked on at once, and waiting; ADMISSION_LIMITS by default (tests fill smaller bounds). */
  admission?: AdmissionLimits;
  /** How long Akismet has to answer; 1.5 s by default. */
  akismetTimeoutMs?: number;
  /**
   * What is done with a schema this release has not migrated: `migrate` makes the schema changes (serve,
   * `portico migrate`); `require` refuses it with SchemaError naming `portico migrate` (every other command).
   */
  schema?: 'migrate' | 'require';
}

/**
 * Opens and migrates the database, builds every adapter the configuration asks for and waits for Redis's
 * first connection attempt; close() releases them all, the database last.
 */
export async function buildDeps(config: Readonly<Config>, options: DepsOptions = {}): Promise<Deps> {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? cryptoRandom;
  const logDestination = options.logDestination ?? logLines();
  const logger = createLogger(config.logLevel, logDestination);
  const engine = openDatabase(config.database);
  try {
    const status = options.schema === 'require' ? await schemaStatus(engine) : undefined;
    // A new database (no schema at all) is made by any command: no node of any release runs on it yet.
    if (status && !status.empty) refuseUnmigrated(status);
    else {
      const { unknown } = await migrateSchema(engine, () => clock.now());
      if (unknown.length) logger.info({ migrations: unknown.map((m) => m.name) }, 'the database carries migrations of a later release, all compatible: this release runs beside them');
    }
  } catch (error) {
    await engine.destroy();
    throw error;
  }
  const { oauth, inquiries } = engine;
  const sharedLimits = config.redisUrl ? redisRateLimitStore({ url: config.redisUrl, logger, keyPrefix: config.redisKeyPrefix }) : undefined;
  // Settles (never rejects) once the first connection attempt ends: no false "Redis is away" at start.
  await sharedLimits?.ready();
  const humanCheck =
    config.turnstile &&
    siteverifyHumanCheck({
      ...config.turnstile,
      // Cloudflare's test secrets report example.com, so D11 skips the hostname check for them.
      allowedHostnames: isTurnstileTestSecret(config.turnstile.secretKey) ? [] : turnstileHostnames(config),
      timeoutMs: options.humanCheckTimeoutMs ?? 3_000,
      random,
    });
  const { cimd } = config;
  if (cimd.enabled && cimd.allowPrivateNetworks) {
    logger.warn('CIMD_ALLOW_PRIVATE_NETWORKS=true: client ID metadata documents may be fetched from loopback and private addresses (SSRF guard off); use it only for tests and private deployments');
  }
  const clientMetadata = cimd.enabled
    ? httpsMetadataFetcher({
        timeoutMs: cimd.fetchTimeoutMs,
        maxBytes: METADATA_DOCUMENT_MAX_BYTES,
        allowPrivateNetworks: cimd.allowPrivateNetworks,
        resolve: options.resolveHost,
        extraCa: options.metadataDocumentCa,
      })
    : undefined;
  const counters = sharedLimits?.counters ?? memoryCounters(clock);
  const { smtp, dkim } = config.delivery;
  if (smtp?.tlsInsecure) logger.warn({ host: smtp.host }, "SMTP_TLS_INSECURE=true: the mail relay's certificate is not checked; anyone on the path could read the mail");
  const { webhook: webhookSettings } = config.delivery;
  const outboxDir = options.outboxDir ?? OUTBOX_DIR;
  const mailer = smtp ? smtpMailer({ smtp, dkim, log: logger }) : webhookSettings ? undefined : outboxMailer(outboxDir, dkim);
  const webhook = webhookSettings && standardWebhookSender(webhookSettings, clock);
  const screening = buildScreening(config, options.akismetTimeoutMs ?? AKISMET_TIMEOUT_MS, clock, random);
  // prom-client loads only when metrics are asked for: it adds some 80 ms to a start.
  const prometheus = config.metrics ? (await import('./adapters/metrics/prometheus.js')).prometheusMetrics({ inquiries, clock }) : undefined;
  const metrics = prometheus ?? noMetrics;
  const pending = new PendingWork();
  return {
    config,
    clock,
    random,
    logger,
    logDestination,
    engine,
    inquiries,
    oauth,
    leases: engine.leases,
    removeOutboxCopies: (ids) => removeOutboxCopies(outboxDir, ids),
    mailer,
    webhook,
    humanCheck,
    tokens: storedTokenVerifier(oauth, clock),
    clientMetadata,
    // One instance for every route and for the limiter: the in-process store keeps its counters in itself.
    rateLimitCounters: counters,
    limiter: countedLimiter(storeRateLimiter(counters, config.rateLimits), metrics),
    admission: new Admission(options.admission),
    pending,
    screening,
    metrics,
    prometheus,
    async close() {
      await pending.finished();
      humanCheck?.close();
      screening.remote?.close();
      clientMetadata?.close();
      await mailer?.close();
      await webhook?.close();
      await sharedLimits?.close();
      await engine.destroy();
    },
  };
}

// Akismet answers in a few hundred milliseconds; an inquiry waits no longer than this for it, and then goes on unjudged.
const AKISMET_TIMEOUT_MS = 1_500;

/** The screening the settings ask for: the local checks built once, Akismet when AKISMET_KEY is set. */
function buildScreening(config: Readonly<Config>, akismetTimeoutMs: number, clock: Clock, random: Random): Screening {
  const { screening, appEnv, publicUrl } = config;
  const remote = screening.enabled && screening.akismet ? akismetSpamCheck({ ...screening.akismet, site: publicUrl, test: appEnv !== 'production', timeoutMs: akismetTimeoutMs }) : undefined;
  return { local: localScreening(screening), hold: screening.hold, duplicateWindowMs: screening.duplicateWindowMs, remote, answerFloor: new AnswerFloor(clock, random) };
}

/** Each refusal by a limit counted outside the routes is reported, as the routes' own are (app.ts). */
function countedLimiter(limiter: RateLimiter, metrics: Metrics): RateLimiter {
  if (metrics === noMetrics) return limiter;
  return {
    async hit(limit, subject) {
      const throttled = await limiter.hit(limit, subject);
      if (throttled) metrics.rateLimited(limit);
      return throttled;
    },
  };
}

// draft-ietf-oauth-client-id-metadata-document: documents are small; 5 KB bounds what a fetch may hold.
const METADATA_DOCUMENT_MAX_BYTES = 5 * 1024;

/**
 * Commands other than serve and migrate never change the schema (D22): a database that needs this release's
 * schema changes, or carries a later release's that this one cannot run beside, is refused in one line.
 */
function refuseUnmigrated(status: SchemaStatus): void {
  const incompatible = status.unknown.filter((m) => !m.compatible);
  if (incompatible.length) {
    throw new SchemaError(`the database carries ${incompatible.map((m) => m.name).join(', ')}, migrations of a later release that this release cannot run beside: use that release's portico`);
  }
  if (status.pending.length) {
    throw new SchemaError(
      `the database is not migrated for this release (${status.pending.length} pending: ${status.pending.map((m) => m.name).join(', ')}): run \`portico migrate\`, or start a node of this release`,
    );
  }
}

/** What `portico check` looks at, reached without changing anything. */
export interface Inspection {
  /** What the database needs of this release; undefined when it does not exist (an SQLite file not made yet). */
  schema(): Promise<SchemaStatus | undefined>;
  /** The SMTP relay's mailer, to verify; undefined without SMTP_URL. */
  relay: Mailer | undefined;
  close(): Promise<void>;
}

/** The database opened to read (never created nor migrated) and the relay, for `portico check`. */
export function inspectDeployment(config: Readonly<Config>): Inspection {
  const engine = openDatabaseToInspect(config.database);
  const { smtp, dkim } = config.delivery;
  const relay = smtp ? smtpMailer({ smtp, dkim, log: createLogger('fatal') }) : undefined;
  return {
    schema: async () => (engine ? await schemaStatus(engine) : undefined),
    relay,
    async close() {
      await relay?.close();
      await engine?.destroy();
    },
  };
}

/**
 * The contact path's dependencies: `deps`, with the mail addresses, retry window and acknowledgement switch
 * of its configuration, and its logger as `log`.
 */
export function contactDeps(deps: Deps): ContactDeps {
  const { appEnv, mailFrom, mailTo, mailToByTopic, privacyPolicyUrl, delivery } = deps.config;
  return { ...deps, mail: { appEnv, mailFrom, mailTo, mailToByTopic }, retryForMs: delivery.retryForMs, acknowledge: delivery.acknowledge, privacyPolicyUrl, log: deps.logger };
}

function turnstileHostnames(config: Readonly<Config>): string[] {
  return [...new Set([config.publicUrl, ...config.contactAllowedOrigins].map((url) => new URL(url).hostname))];
}

/** Pino with the request serializer trimmed: path without query (tokens may hide there), no headers. Lines go to stdout in batches (log-lines.ts). */
function createLogger(level: string, destination: pino.DestinationStream = logLines()): Logger {
  return pino(
    {
      level,
      base: LOG_BASE,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.secret', '*.client_secret', '*.password'], censor: '[redacted]' },
      serializers: {
        req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, path: req.url.split('?', 1)[0], ip: req.ip }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    },
    destination,
  );
}
