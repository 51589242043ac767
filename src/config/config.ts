// The service's configuration: parsed once from an environment map into a frozen, typed Config.
import { durationMs } from './durations.js';
import { MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS, MIN_BODY_RATE } from '../http/connection-limits.js';
import { isIP } from 'node:net';
import * as z from 'zod';
import { parseCimd, type CimdSettings } from './cimd.js';
import { parseDelivery, type DeliverySettings } from './mail.js';
import { TOPICS, type Topic } from '../ports/inquiry-store.js';
import { parseInquiryRetention, parseSpamRetention, type RetentionSettings } from './retention.js';
import { parseScreening, type ScreeningSettings } from './screening.js';
import { oneOf, originOf, parseBaseUrl, parseCount, parsePort, parseUrlWithScheme, redactUrl, type Fail } from './values.js';
import { parseRateLimits, type RateLimits } from './rate-limits.js';

export const APP_ENVS = ['development', 'sandbox', 'production'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

export interface MailAddress {
  name: string;
  address: string;
}

export type Database = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };
/** What Fastify's `trustProxy` accepts: a hop count, or addresses/CIDRs/keywords of trusted proxies. */
export type TrustProxy = false | number | string[];

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  sandboxUrl: string | undefined;
  appEnv: AppEnv;
  database: Database;
  redisUrl: string | undefined;
  /** Namespace of the rate-limit counters in Redis, so deployments sharing one Redis stay apart. */
  redisKeyPrefix: string;
  /** Where inquiries go: the SMTP relay, DKIM, the webhook, retries (D15). */
  delivery: DeliverySettings;
  mailFrom: MailAddress;
  mailTo: MailAddress;
  /** MAIL_TO_SALES, MAIL_TO_DEMO, MAIL_TO_SUPPORT: the team's mailbox for an inquiry on that topic, else MAIL_TO. */
  mailToByTopic: Record<Topic, MailAddress>;
  turnstile: { secretKey: string; siteKey: string; verifyUrl: string } | undefined;
  trustProxy: TrustProxy;
  contactAllowedOrigins: readonly string[];
  mcpAllowedOrigins: readonly string[] | '*';
  rateLimits: RateLimits;
  logLevel: string;
  /** Client ID metadata documents (D13). */
  cimd: CimdSettings;
  /** Open connections a node holds at once; at the cap, the oldest idle one makes room, else a newcomer is closed. */
  maxConnections: number;
  /** D19: open connections from one address (IPv6 by /64); trusted proxies are not capped. */
  maxConnectionsPerAddress: number;
  /** MIN_BODY_RATE: bytes a second a request body must average after its first 5 s (408 below); 0: no floor. */
  minBodyRate: number;
  /** How long inquiries and spam are kept (INQUIRY_RETENTION, SPAM_RETENTION). */
  retention: RetentionSettings;
  /** Where GET /metrics is served (METRICS_PORT, METRICS_HOST); undefined: no metrics at all. */
  metrics: { host: string; port: number } | undefined;
  /** Duplicates and spam (D20). */
  screening: ScreeningSettings;
  /** The site's privacy policy (https), linked from the forms' consent checkbox; undefined: no link. */
  privacyPolicyUrl: string | undefined;
  /** SHUTDOWN_DRAIN: after SIGTERM, how long /readyz answers 503 while the node still serves (D22). */
  shutdownDrainMs: number;
}

/** Every mistake in the settings, each on its own line: one start names them all. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly problems: readonly string[];
  constructor(problems: string | readonly string[]) {
    const list = typeof problems === 'string' ? [problems] : problems;
    super(list.join('\n'));
    this.problems = list;
  }
}

export const CLOUDFLARE_SITEVERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
// Cloudflare's documented test secrets (always pass, always fail, already spent).
export const isTurnstileTestSecret = (secret: string) => /^[123]x0+AA$/.test(secret);

type Env = Record<string, string | undefined>;

/**
 * The environment as a frozen Config, with development defaults; it reads the PEM files the settings name.
 * Throws one ConfigError naming every bad setting, so that one start reports them all.
 */
export function loadConfig(env: Env): Readonly<Config> {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const fail = (name: string, problem: string, value?: string): never => {
    throw new ConfigError(`${name} ${problem}${value === undefined ? '' : ` (got "${value}")`}`);
  };
  // Each setting is read on its own: a mistake is noted and the reading goes on with a stand-in, so
  // that one start names every mistake instead of one per restart.
  const problems: string[] = [];
  const setting = <T>(parse: () => T, standIn: T): T => {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
      return standIn;
    }
  };

  const port = setting(() => parsePort('PORT', read('PORT') ?? '3000', fail), 3000);
  const host = read('HOST') ?? '127.0.0.1';
  const appEnv = setting(() => oneOf('APP_ENV', read('APP_ENV') ?? 'development', APP_ENVS, fail), 'development');
  const production = appEnv === 'production';
  const publicUrl = setting(() => parsePublicUrl(read('PUBLIC_URL'), port, production, fail), `http://localhost:${port}`);
  const sandboxRaw = read('SANDBOX_URL');
  const sandboxUrl = sandboxRaw === undefined ? undefined : setting(() => parseBaseUrl('SANDBOX_URL', sandboxRaw, fail), undefined);

  const delivery = setting(() => parseDelivery(read, fail, production), { smtp: undefined, dkim: undefined, webhook: undefined, retryForMs: 86_400_000, acknowledge: false });
  const mailFrom = setting(() => parseMailbox('MAIL_FROM', read('MAIL_FROM'), production, 'Portico <portico@localhost>', fail), {
    name: 'Portico',
    address: 'portico@localhost',
  });
  const mailTo = setting(() => parseMailbox('MAIL_TO', read('MAIL_TO'), production, 'Portico team <team@localhost>', fail), { name: 'Portico team', address: 'team@localhost' });
  const topicMailbox = (name: string) => (read(name) === undefined ? mailTo : setting(() => parseMailbox(name, read(name), false, '', fail), mailTo));
  const mailToByTopic = Object.fromEntries(TOPICS.map((topic) => [topic, topicMailbox(`MAIL_TO_${topic.toUpperCase()}`)])) as Record<Topic, MailAddress>;

  const secretKey = read('TURNSTILE_SECRET_KEY');
  const siteKey = read('TURNSTILE_SITE_KEY');
  setting(() => {
    if ((secretKey === undefined) !== (siteKey === undefined)) {
      fail(secretKey === undefined ? 'TURNSTILE_SECRET_KEY' : 'TURNSTILE_SITE_KEY', 'must be set together with its pair (site key and secret key)');
    }
    if (production && secretKey !== undefined && isTurnstileTestSecret(secretKey)) {
      fail('TURNSTILE_SECRET_KEY', 'is a Cloudflare test key, refused when APP_ENV=production');
    }
  }, undefined);
  const verifyUrl = read('TURNSTILE_VERIFY_URL') ?? CLOUDFLARE_SITEVERIFY_URL;
  setting(() => parseUrlWithScheme('TURNSTILE_VERIFY_URL', verifyUrl, ['https:', 'http:'], fail), undefined);
  const turnstile = secretKey && siteKey ? { secretKey, siteKey, verifyUrl } : undefined;

  const publicOrigin = new URL(publicUrl).origin;
  const contactAllowedOrigins = setting(() => parseOrigins('CONTACT_ALLOWED_ORIGINS', read('CONTACT_ALLOWED_ORIGINS'), publicOrigin, fail), [publicOrigin]);
  const mcpRaw = read('MCP_ALLOWED_ORIGINS');
  const mcpAllowedOrigins = mcpRaw === '*' ? '*' : setting(() => parseOrigins('MCP_ALLOWED_ORIGINS', mcpRaw, publicOrigin, fail), [publicOrigin]);

  const rateLimits = setting(
    () => parseRateLimits(read('RATE_LIMITS') ?? 'default', (problem) => fail('RATE_LIMITS', problem)),
    parseRateLimits('default', () => undefined as never),
  );
  const logLevel = setting(() => oneOf('LOG_LEVEL', read('LOG_LEVEL') ?? 'info', LOG_LEVELS, fail), 'info');
  const database = setting(() => parseDatabase(read('DATABASE_URL') ?? 'sqlite:./data/portico.sqlite', fail), undefined);
  const redisUrl = setting(() => optionalUrl('REDIS_URL', read('REDIS_URL'), ['redis:', 'rediss:'], fail), undefined);
  const redisKeyPrefix = setting(() => parseKeyPrefix(read('REDIS_KEY_PREFIX') ?? 'portico:rl:', fail), 'portico:rl:');
  const trustProxy = setting(() => parseTrustProxy(read('TRUST_PROXY'), fail), false);
  const cimd = setting(() => parseCimd(read, fail), undefined);
  const maxConnections = setting(() => parseCount('MAX_CONNECTIONS', read('MAX_CONNECTIONS') ?? String(MAX_CONNECTIONS), fail), MAX_CONNECTIONS);
  const perAddress = String(MAX_CONNECTIONS_PER_ADDRESS);
  const maxConnectionsPerAddress = setting(() => parseCount('MAX_CONNECTIONS_PER_ADDRESS', read('MAX_CONNECTIONS_PER_ADDRESS') ?? perAddress, fail), MAX_CONNECTIONS_PER_ADDRESS);
  const minBodyRate = setting(() => parseRate('MIN_BODY_RATE', read('MIN_BODY_RATE') ?? String(MIN_BODY_RATE), fail), MIN_BODY_RATE);
  const retention: RetentionSettings = {
    inquiryMs: setting(() => parseInquiryRetention(read, delivery.retryForMs, fail), undefined),
    spamMs: setting(() => parseSpamRetention(read, fail), undefined),
  };
  const screening = parseScreening(read, retention.inquiryMs, fail, setting);
  const privacyRaw = read('PRIVACY_POLICY_URL');
  // Linked from the forms' consent checkbox: a page any visitor opens, so https only.
  const privacyPolicyUrl = privacyRaw === undefined ? undefined : setting(() => parseUrlWithScheme('PRIVACY_POLICY_URL', privacyRaw, ['https:'], fail).href, undefined);
  const shutdownDrainMs = setting(() => parseShutdownDrain(read('SHUTDOWN_DRAIN') ?? '0s', fail), 0);
  const metrics = setting(() => parseMetrics(read('METRICS_PORT'), read('METRICS_HOST') ?? '127.0.0.1', port, fail), undefined);

  if (problems.length) throw new ConfigError(problems);
  return deepFreeze({
    port,
    host,
    publicUrl,
    sandboxUrl,
    appEnv,
    database: database!,
    redisUrl,
    redisKeyPrefix,
    delivery,
    mailFrom,
    mailTo,
    mailToByTopic,
    turnstile,
    trustProxy,
    contactAllowedOrigins,
    mcpAllowedOrigins,
    rateLimits,
    logLevel,
    cimd: cimd!,
    maxConnections,
    maxConnectionsPerAddress,
    minBodyRate,
    retention,
    metrics,
    screening,
    privacyPolicyUrl,
    shutdownDrainMs,
  });
}

// A balancer that checks readiness every few seconds notices within a minute; a longer drain only delays a roll.
const MAX_SHUTDOWN_DRAIN_MS = 60_000;
function parseShutdownDrain(raw: string, fail: Fail): number {
  const ms = durationMs(raw);
  if (ms === undefined) return fail('SHUTDOWN_DRAIN', 'must be a duration such as 0s, 5s or 15s', raw);
  if (ms > MAX_SHUTDOWN_DRAIN_MS) fail('SHUTDOWN_DRAIN', 'must be at most 60s: a balancer that checks /readyz every few seconds notices well within it', raw);
  return ms;
}

/**
 * PUBLIC_URL is the issuer and every resource's identifier, so it must be the address clients use: in
 * production it is required, and https unless it is a loopback address (a proxy on the same machine).
 */
function parsePublicUrl(raw: string | undefined, port: number, production: boolean, fail: Fail): string {
  if (raw === undefined && production) fail('PUBLIC_URL', 'is required when APP_ENV=production: the https address clients use, such as https://api.example.com');
  const url = parseBaseUrl('PUBLIC_URL', raw ?? `http://localhost:${port}`, fail);
  const hostname = new URL(url).hostname;
  if (production && url.startsWith('http:') && !['localhost', '127.0.0.1', '[::1]'].includes(hostname)) {
    fail('PUBLIC_URL', 'must use https:// when APP_ENV=production (clients send tokens and personal data to it)', url);
  }
  return url;
}

function deepFreeze<T extends object>(value: T): Readonly<T> {
  // A Buffer (a decoded secret) cannot be frozen; nothing hands it out to be written.
  for (const inner of Object.values(value)) if (inner && typeof inner === 'object' && !ArrayBuffer.isView(inner)) deepFreeze(inner);
  return Object.freeze(value);
}

/** The metrics listener is apart from the public one: on its own port, on loopback unless told otherwise. */
function parseMetrics(rawPort: string | undefined, host: string, publicPort: number, fail: Fail): Config['metrics'] {
  if (rawPort === undefined) return undefined;
  const port = parsePort('METRICS_PORT', rawPort, fail);
  if (port !== 0 && port === publicPort) fail('METRICS_PORT', `must differ from PORT (${publicPort}): the metrics are never served on the public port`, rawPort);
  return { host, port };
}

function optionalUrl(name: string, raw: string | undefined, schemes: string[], fail: Fail): string | undefined {
  if (raw === undefined) return undefined;
  parseUrlWithScheme(name, raw, schemes, fail);
  return raw;
}

function parseMailbox(name: string, raw: string | undefined, required: boolean, fallback: string, fail: Fail): MailAddress {
  if (raw === undefined && required) fail(name, 'is required when APP_ENV=production');
  const value = raw ?? fallback;
  const match = /^\s*(?:"?([^"<>]*?)"?\s*<([^<>\s]+)>|([^<>\s]+))\s*$/.exec(value);
  const address = match?.[2] ?? match?.[3];
  if (!address || (!z.email().safeParse(address).success && !/^[^@\s]+@localhost$/.test(address))) {
    fail(name, 'must be an e-mail address, optionally with a name: Name <user@example.com>', value);
  }
  return { name: match?.[1]?.trim() ?? '', address: address };
}

function parseOrigins(name: string, raw: string | undefined, fallback: string, fail: Fail): string[] {
  if (raw === undefined) return [fallback];
  return raw.split(',').map((item) => {
    const value = item.trim();
    return originOf(value) ?? fail(name, 'must be a comma-separated list of origins such as https://www.example.com', value);
  });
}

function parseKeyPrefix(raw: string, fail: Fail): string {
  return /^[\x21-\x7e]{1,64}$/.test(raw) ? raw : fail('REDIS_KEY_PREFIX', 'must be 1-64 printable ASCII characters without spaces', raw);
}

function parseDatabase(raw: string, fail: Fail): Database {
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) fail('DATABASE_URL', 'needs a file path after sqlite:', raw);
    return { engine: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(raw)) return { engine: 'postgres', url: raw };
  return fail('DATABASE_URL', 'must be sqlite:PATH or postgres://...', redactUrl(raw));
}

const PROXY_KEYWORDS = new Set(['loopback', 'linklocal', 'uniquelocal']);

function parseTrustProxy(raw: string | undefined, fail: Fail): TrustProxy {
  if (raw === undefined || raw === 'false') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw.split(',').map((item) => {
    const value = item.trim();
    const [address, prefix, extra] = value.split('/');
    const family = isIP(address ?? '');
    const prefixOk = prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (!PROXY_KEYWORDS.has(value) && (family === 0 || !prefixOk || extra !== undefined)) {
      fail('TRUST_PROXY', 'must be a hop count or a comma-separated list of proxy addresses, CIDRs, loopback, linklocal or uniquelocal', value);
    }
    return value;
  });
}

/** Bytes a second, a whole number; 0 turns the floor off. */
function parseRate(name: string, raw: string, fail: Fail): number {
  return /^\d{1,7}$/.test(raw) ? Number(raw) : fail(name, 'must be a whole number of bytes a second (0 for no floor)', raw);
}
