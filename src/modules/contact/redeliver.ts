// Recovery after a crash: inquiries left pending by a dead process are delivered by the next one.
import { AppError } from '../../errors.js';
import { deliver, STALE_ATTEMPT_MS, type ContactDeps } from './submit.js';

const BATCH = 50;

/** Delivers stalled inquiries; returns how many were sent. Failures stay `failed` for the CLI. */
export async function redeliverStalled(deps: ContactDeps): Promise<number> {
  const stalled = await deps.inquiries.listStalled(deps.clock.now() - STALE_ATTEMPT_MS, BATCH);
  let sent = 0;
  for (const inquiry of stalled) {
    try {
      await deliver(deps, inquiry.id);
      sent++;
    } catch (error) {
      // Another node claimed it first, or the mail server refused it (now recorded as failed).
      if (!(error instanceof AppError)) throw error;
    }
  }
  if (stalled.length) deps.log.warn({ stalled: stalled.length, sent }, 'redelivered inquiries left pending by a stopped process');
  return sent;
}
