// The retention job: inquiries past INQUIRY_RETENTION and spam past SPAM_RETENTION are deleted with
// their outbox copies, by one node at a time (a lease in the shared database).
import type { RetentionSettings } from '../../config/retention.js';
import type { Clock } from '../../ports/clock.js';
import type { JobLeases } from '../../ports/job-leases.js';
import { forgetInquiries, type ForgetDeps } from './forget.js';

/** How often each node looks; the lease keeps the others out for half of it. */
export const RETENTION_INTERVAL_MS = 3_600_000;
/**
 * The job runs inside a serving node, on the core its requests need: resting nine times as long as each
 * batch took, it takes a tenth of the node's time at most, and the requests' latency barely moves (a
 * busy node's share of its core is what sets their queue). A first run with a year to delete takes
 * minutes; an hourly run deletes an hour's inquiries.
 */
export const RETENTION_REST_FACTOR = 9;

export interface RetentionDeps extends ForgetDeps {
  clock: Clock;
  leases: JobLeases;
  /** This process, as a lease holder. */
  holder: string;
  log: { info(obj: object, msg: string): void };
}

/**
 * Deletes what is past its retention; undefined when another node holds the job or nothing is limited.
 * Once `signal` is aborted, or its lease has ended (a first run with a year to delete, on a busy node),
 * it stops after the batch in progress, and the next run goes on: never two nodes at it at once.
 */
export async function applyRetention(deps: RetentionDeps, policy: RetentionSettings, signal?: AbortSignal): Promise<{ spam: number; inquiries: number } | undefined> {
  if (policy.inquiryMs === undefined && policy.spamMs === undefined) return undefined;
  const now = deps.clock.now();
  const leaseEnds = now + RETENTION_INTERVAL_MS / 2;
  if (!(await deps.leases.claim('retention', deps.holder, now, leaseEnds))) return undefined;
  const leased = () => deps.clock.now() < leaseEnds;
  const options = { restFactor: RETENTION_REST_FACTOR, goOn: leased, ...(signal && { signal }) };
  const spam = policy.spamMs === undefined ? 0 : await forgetInquiries(deps, { createdBefore: now - policy.spamMs, status: 'spam' }, options);
  const inquiries = policy.inquiryMs === undefined || signal?.aborted || !leased() ? 0 : await forgetInquiries(deps, { createdBefore: now - policy.inquiryMs }, options);
  // Counts only: never an address or a name in the log.
  if (spam || inquiries) deps.log.info({ spam, inquiries }, 'retention: deleted inquiries past their retention, with their outbox copies');
  if (!leased()) deps.log.info({}, 'retention: the run reached the end of its lease; the next run goes on');
  return { spam, inquiries };
}
