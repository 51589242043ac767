// The background half of delivery (D15): inquiries whose retry is due, and those left pending by a
// process that died, delivered by whichever node claims them first.
import { AppError } from '../../errors.js';
import { deliver, STALE_ATTEMPT_MS, type DeliveryDeps } from './delivery.js';

const BATCH = 50;

/** Delivers the inquiries waiting for an attempt; returns how many went out. Failures are rescheduled by the attempt itself. */
export async function deliverWaiting(deps: DeliveryDeps): Promise<number> {
  const now = deps.clock.now();
  const stalled = await deps.inquiries.listStalled(now - STALE_ATTEMPT_MS, BATCH);
  const due = await deps.inquiries.listDue(now, BATCH);
  let sent = 0;
  for (const inquiry of [...stalled, ...due]) {
    try {
      await deliver(deps, inquiry.id);
      sent++;
    } catch (error) {
      // Another node claimed it first, or it failed again (recorded, with its next attempt).
      if (!(error instanceof AppError)) throw error;
    }
  }
  if (stalled.length) deps.log.warn({ stalled: stalled.length }, 'redelivering inquiries left pending by a stopped process');
  return sent;
}
