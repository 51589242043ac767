// `portico inquiries list|show|resend|release|purge`: the team's view of stored inquiries.
import { contactDeps, type Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { MAX_RETENTION_DAYS } from '../config/retention.js';
import { durationMs } from '../config/durations.js';
import { attempt, deliver } from '../modules/contact/delivery.js';
import { teamMailbox } from '../modules/contact/email.js';
import { forgetInquiries } from '../modules/contact/forget.js';
import { TOPICS, type Inquiry, type InquiryStatus, type Topic } from '../ports/inquiry-store.js';
import { GENERAL } from '../modules/common/topics.js';
import { csvWriter } from './csv.js';
import { eachInquiry } from './inquiry-pages.js';
import { CliError, type Output } from './output.js';

const STATUSES: readonly InquiryStatus[] = ['pending', 'sent', 'failed', 'spam', 'duplicate'];
const DAY_MS = 86_400_000;
const FORMATS = ['table', 'json', 'ndjson', 'csv'];

/**
 * `portico inquiries list`: the newest inquiries as a table, or streamed as JSON, NDJSON or CSV at the
 * reader's pace. CliError for a bad --status, --limit or --format.
 */
export async function listInquiries(deps: Deps, out: Output, options: { status?: string; topic?: string; limit?: string; format?: string }): Promise<void> {
  const status = options.status as InquiryStatus | undefined;
  if (status !== undefined && !STATUSES.includes(status)) throw new CliError(`--status must be one of ${STATUSES.join(', ')}`);
  const topic = topicFilter(options.topic);
  const limit = positiveInteger('--limit', options.limit ?? '50');
  const format = options.format ?? 'table';
  if (!FORMATS.includes(format)) throw new CliError(`--format must be one of ${FORMATS.join(', ')} (got "${format}")`);
  if (format !== 'table') {
    // Written as it is read: memory stays the same however many are listed.
    const write = listWriter(format, out);
    for await (const inquiry of eachInquiry(deps.inquiries, { status, topic }, limit)) {
      write.row(inquiry);
      await out.drained();
    }
    return write.end();
  }
  const inquiries = await deps.inquiries.list({ status, topic, limit });
  if (!inquiries.length) return out.line('no inquiries');
  out.table(
    ['ID', 'RECEIVED', 'STATUS', 'TOPIC', 'TRIES', 'NEXT TRY', 'LANG', 'CHANNEL', 'EMAIL', 'NAME', 'REASONS', 'LAST ERROR'],
    inquiries.map((i) => [
      i.id,
      iso(i.createdAt),
      i.status,
      i.topic ?? GENERAL,
      String(i.attempts),
      i.nextAttemptAt === null ? '-' : iso(i.nextAttemptAt),
      i.locale,
      i.channel,
      i.email,
      truncate(i.name, 40),
      // A duplicate's reason to be kept back is the first inquiry, which the team has.
      i.duplicateOf === null ? i.spamReasons.join(',') || '-' : `duplicate of ${i.duplicateOf}`,
      i.lastError === null || i.status === 'sent' ? '-' : truncate(i.lastError, 60),
    ]),
  );
}

/**
 * `portico inquiries show ID`: one inquiry, whole, as labelled lines (or as JSON), with its screening
 * reasons, its record of consent and every try of every channel at it.
 */
export async function showInquiry(deps: Deps, out: Output, id: string | undefined, options: { format?: string }): Promise<void> {
  if (!id) throw new CliError('usage: portico inquiries show ID [--format json]');
  const format = options.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new CliError(`--format must be text or json (got "${format}")`);
  const inquiry = await deps.inquiries.get(id);
  if (!inquiry) throw new CliError(`no inquiry ${id}`);
  const attempts = await deps.inquiries.attempts(id);
  if (format === 'json') return out.json({ ...inquiry, attempts });
  const at = (ms: number | null) => (ms === null ? '-' : iso(ms));
  const fields: [string, string][] = [
    ['id', inquiry.id],
    ['received', iso(inquiry.createdAt)],
    ['status', inquiry.status],
    ['reasons', inquiry.spamReasons.join(', ') || '-'],
    ...(inquiry.duplicateOf === null ? [] : ([['duplicate of', inquiry.duplicateOf]] as [string, string][])),
    ...(inquiry.releasedAt === null ? [] : ([['released', iso(inquiry.releasedAt)]] as [string, string][])),
    ['topic', inquiry.topic ?? GENERAL],
    ['channel', inquiry.channel],
    ['client', inquiry.clientId ?? '-'],
    ['name', inquiry.name],
    ['email', inquiry.email],
    ['language', inquiry.locale],
    ['consent', consentLine(inquiry)],
    ['tries', String(inquiry.attempts)],
    ['sent', at(inquiry.sentAt)],
    ['next try', at(inquiry.nextAttemptAt)],
    ['last error', inquiry.lastError ?? '-'],
  ];
  const width = Math.max(...fields.map(([label]) => label.length)) + 2;
  for (const [label, value] of fields) out.line(`${`${label}:`.padEnd(width)}${value}`);
  out.line('');
  if (attempts.length) {
    // What the relay or the endpoint said comes from outside: the table escapes what a terminal would obey.
    out.table(
      ['ATTEMPT', 'CHANNEL', 'TOOK', 'RESULT', 'ERROR'],
      attempts.map((a) => [iso(a.startedAt), a.channel, `${((a.endedAt - a.startedAt) / 1000).toFixed(3)} s`, a.result ?? '-', a.error ?? '-']),
    );
    out.line('');
  }
  for (const line of inquiry.message.split(/\r\n?|\n/)) out.line(line);
}

/**
 * `portico inquiries release ID`: delivers an inquiry kept as spam, once, and marks it released (it leaves
 * the spam list). CliError for one that is not spam, or whose delivery failed (kept failed, for `resend`).
 */
export async function releaseInquiry(deps: Deps, out: Output, id: string | undefined): Promise<void> {
  if (!id) throw new CliError('usage: portico inquiries release ID');
  const inquiry = await deps.inquiries.get(id);
  if (!inquiry) throw new CliError(`no inquiry ${id}`);
  if (inquiry.status !== 'spam') {
    const why = inquiry.releasedAt === null ? `is not kept as spam (it is ${inquiry.status})` : `was already released, at ${iso(inquiry.releasedAt)}`;
    throw new CliError(`inquiry ${id} ${why}; nothing to release`);
  }
  const now = deps.clock.now();
  // Claimed in the store: of two releases at once, one delivers it.
  if (!(await deps.inquiries.release(id, now))) throw new CliError(`inquiry ${id} is being released by another command; nothing to release`);
  // A delivery that failed is recorded by the attempt (delivery_failed); the store's own failures are not.
  await attempt(contactDeps(deps), { ...inquiry, status: 'pending', releasedAt: now, attempts: inquiry.attempts + 1 }).catch((error: unknown) => {
    if (!(error instanceof AppError)) throw error;
  });
  const latest = await deps.inquiries.get(id);
  if (latest?.status !== 'sent') throw new CliError(`inquiry ${id} released, but not delivered: ${latest?.lastError ?? 'no channel took it'}; \`portico inquiries resend ${id}\` tries again`);
  out.line(`inquiry ${id} released and delivered to ${destinations(deps, [inquiry.topic])}`);
}

/**
 * `portico inquiries resend`: one attempt for the inquiry on every channel that lacks it (all of them with
 * --force), or for every failed one with --failed. CliError for spam, a sent one without --force, or a failure.
 */
export async function resendInquiry(deps: Deps, out: Output, id: string | undefined, options: { force?: boolean; failed?: boolean; since?: string }): Promise<void> {
  if (options.failed) {
    if (id !== undefined || options.force) throw new CliError('usage: portico inquiries resend --failed [--since DURATION] (no ID, no --force)');
    return resendFailed(deps, out, options.since);
  }
  if (options.since !== undefined) throw new CliError('--since goes with --failed');
  if (!id) throw new CliError('usage: portico inquiries resend ID [--force] | resend --failed [--since DURATION]');
  const inquiry = await deps.inquiries.get(id);
  if (!inquiry) throw new CliError(`no inquiry ${id}`);
  refuseResend(inquiry, options.force === true);
  const failure = await deliverNow(contactDeps(deps), id, options.force === true);
  if (failure) throw new CliError(`inquiry ${id} not delivered: ${failure}`);
  out.line(`inquiry ${id} delivered to ${destinations(deps, [inquiry.topic])}`);
}

/** One attempt on every channel that lacks the inquiry: undefined once all have it, else the reason. */
async function deliverNow(contact: ReturnType<typeof contactDeps>, id: string, resendSent = false): Promise<string | undefined> {
  let thrown: unknown;
  await deliver(contact, id, { resendSent }).catch((error: unknown) => (thrown = error));
  const latest = await contact.inquiries.get(id);
  if (latest?.status === 'sent') return undefined;
  return latest?.lastError ?? (thrown as Error | undefined)?.message ?? 'not delivered';
}

/** Where delivered inquiries of these topics went: their teams' mailboxes, the webhook, or both. */
function destinations(deps: Deps, topics: readonly (Topic | null)[]): string {
  const { smtp, webhook } = deps.config.delivery;
  const mailboxes = [...new Set(topics.map((topic) => teamMailbox(topic, deps.config).address))];
  const places = [...(smtp || !webhook ? mailboxes : []), ...(webhook ? [`the webhook (${new URL(webhook.url).host})`] : [])];
  return places.join(' and ');
}

const RESEND_PAGE = 100;

/** Every failed inquiry (received within `since`, e.g. 24h), newest first, a page at a time; each line says how it went. */
async function resendFailed(deps: Deps, out: Output, sinceRaw: string | undefined): Promise<void> {
  const since = sinceRaw === undefined ? undefined : deps.clock.now() - sinceMs(sinceRaw);
  const contact = contactDeps(deps);
  let [sent, failed] = [0, 0];
  const topics = new Set<Topic | null>();
  for await (const inquiry of eachInquiry(deps.inquiries, { status: 'failed', since }, Infinity, RESEND_PAGE)) {
    topics.add(inquiry.topic);
    const failure = await deliverNow(contact, inquiry.id);
    if (failure === undefined) {
      sent++;
      out.line(`sent    ${inquiry.id}`);
    } else {
      failed++;
      out.line(`failed  ${inquiry.id}: ${failure}`);
    }
  }
  const summary = `${sent} of ${sent + failed} failed ${sent + failed === 1 ? 'inquiry' : 'inquiries'} delivered to ${destinations(deps, topics.size ? [...topics] : [null])}`;
  if (failed) throw new CliError(`${summary}; ${failed} still failed`);
  out.line(summary);
}

function sinceMs(raw: string): number {
  const ms = durationMs(raw);
  if (!ms) throw new CliError(`--since must be a duration such as 30m, 24h or 7d (got "${raw}")`);
  // Bounded as the retention settings are: a slip such as 99999999999d would reach the store as a time no
  // Date or bigint column holds.
  if (ms > MAX_RETENTION_DAYS * DAY_MS) throw new CliError(`--since must be at most ${MAX_RETENTION_DAYS}d (got "${raw}")`);
  return ms;
}

/**
 * `portico inquiries purge --older-than DAYS`: deletes the inquiries received before then with their
 * outbox copies; with --dry-run it only counts them.
 */
export async function purgeInquiries(deps: Deps, out: Output, options: { olderThan?: string; dryRun?: boolean }): Promise<void> {
  if (options.olderThan === undefined) throw new CliError('usage: portico inquiries purge --older-than DAYS [--dry-run]');
  const days = positiveInteger('--older-than', options.olderThan, 0);
  // Bounded as --since is.
  if (days > MAX_RETENTION_DAYS) throw new CliError(`--older-than must be at most ${MAX_RETENTION_DAYS} days (got "${options.olderThan}")`);
  const filter = { createdBefore: deps.clock.now() - days * DAY_MS };
  const noun = (n: number) => `${n} ${n === 1 ? 'inquiry' : 'inquiries'}`;
  if (options.dryRun) return out.line(`would purge ${noun(await deps.inquiries.count(filter))} older than ${days} days, with their outbox copies (dry run: nothing deleted)`);
  const removed = await forgetInquiries(deps, filter);
  out.line(`purged ${noun(removed)} older than ${days} days, with their outbox copies`);
}

function refuseResend(inquiry: Inquiry, force: boolean): void {
  if (inquiry.status === 'spam') {
    throw new CliError(`inquiry ${inquiry.id} is kept as spam (${inquiry.spamReasons.join(', ')}); \`portico inquiries release ${inquiry.id}\` delivers it`);
  }
  if (inquiry.status === 'duplicate') throw new CliError(`inquiry ${inquiry.id} is a duplicate of ${inquiry.duplicateOf}, which the team has; it is never sent`);
  if (inquiry.status === 'sent' && !force) throw new CliError(`inquiry ${inquiry.id} was already sent; add --force to send it again`);
}

/** `--topic`: one of the topics, or `general` for the inquiries without one (null). */
function topicFilter(raw: string | undefined): Topic | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === GENERAL) return null;
  if (!(TOPICS as readonly string[]).includes(raw)) throw new CliError(`--topic must be one of ${[...TOPICS, GENERAL].join(', ')} (got "${raw}")`);
  return raw as Topic;
}

/** The consent record in one line: when, where, by which client, to which policy and words. */
function consentLine(inquiry: Inquiry): string {
  const { consent } = inquiry;
  if (!consent) return 'no record (stored by an earlier version)';
  const client = inquiry.clientId === null ? '' : ` by client ${inquiry.clientId}`;
  return `${iso(consent.at)} through ${consent.door}${client}; policy ${consent.policyUrl ?? '(PRIVACY_POLICY_URL unset)'}; words sha256:${consent.textSha256}`;
}

function positiveInteger(flag: string, raw: string, min = 1): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new CliError(`${flag} must be an integer >= ${min} (got "${raw}")`);
  return Number(raw);
}

const iso = (ms: number) => new Date(ms).toISOString();
// By code point, so that an emoji or an accented letter is never cut in half.
const truncate = (text: string, max: number) =>
  Array.from(text).length > max
    ? `${Array.from(text)
        .slice(0, max - 1)
        .join('')}…`
    : text;

/** Rows as they come: NDJSON, one JSON array, or CSV with a header. */
function listWriter(format: string, out: Output): { row(inquiry: Inquiry): void; end(): void } {
  if (format === 'ndjson') return { row: (inquiry) => out.json(inquiry), end: () => {} };
  if (format === 'csv') return csvWriter(out, CSV_COLUMNS);
  let first = true;
  out.line('[');
  return {
    row(inquiry) {
      out.json(inquiry, first ? '' : ',');
      first = false;
    },
    end: () => out.line(']'),
  };
}

const CSV_COLUMNS: [string, (inquiry: Inquiry) => string | number | null][] = [
  ['id', (i) => i.id],
  ['received', (i) => iso(i.createdAt)],
  ['status', (i) => i.status],
  ['channel', (i) => i.channel],
  ['name', (i) => i.name],
  ['email', (i) => i.email],
  ['locale', (i) => i.locale],
  ['message', (i) => i.message],
  ['client_id', (i) => i.clientId],
  ['attempts', (i) => i.attempts],
  ['sent', (i) => (i.sentAt === null ? null : iso(i.sentAt))],
  ['last_error', (i) => i.lastError],
  // Last, so that a spreadsheet made for the columns before still reads them where they were.
  ['spam_reasons', (i) => i.spamReasons.join(',')],
  ['duplicate_of', (i) => i.duplicateOf],
  ['topic', (i) => i.topic],
];
