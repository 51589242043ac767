// Deleting inquiries for good, with what was kept beside them (the outbox copy of their e-mail): for
// retention, `inquiries purge` and `inquiries erase`. A batch at a time, so that memory and each write
// stay bounded however many match; after each batch, a pause (by default as long as the batch took, so
// that a long purge takes half of the database's and the file system's time at most, and the requests
// served beside it, in this process or another, keep the other half). On SQLite the store also leaves
// the write lock free after each of its commits (../../adapters/sqlite/inquiry-store.ts).
import { setTimeout as pause } from 'node:timers/promises';
import type { InquiryFilter, InquiryStore } from '../../ports/inquiry-store.js';

export const FORGET_BATCH = 500;

export interface ForgetDeps {
  inquiries: Pick<InquiryStore, 'idsMatching' | 'deleteIds'>;
  /** Removes the outbox copies of these inquiries' e-mails, where there are any. */
  removeOutboxCopies(ids: readonly string[]): Promise<void>;
}

export interface ForgetOptions {
  /** Called with each batch's ids once they are gone. */
  onBatch?: (ids: readonly string[]) => void;
  /** Once aborted, no further batch starts: what is left is found again by the next run. */
  signal?: AbortSignal;
  /** The pause after each batch, as a multiple of the time the batch took: 1 by default. */
  restFactor?: number;
  /** Asked after each batch: false ends the run there, and what is left is found again by the next run. */
  goOn?: () => boolean;
}

/**
 * Deletes every inquiry that matches, and returns how many. Files go before rows: a process stopped in
 * between leaves rows that the next run finds again, never a file whose row is gone.
 */
export async function forgetInquiries(deps: ForgetDeps, filter: InquiryFilter, options: ForgetOptions = {}): Promise<number> {
  let total = 0;
  for (;;) {
    const started = performance.now();
    const ids = await deps.inquiries.idsMatching(filter, FORGET_BATCH);
    await deps.removeOutboxCopies(ids);
    total += await deps.inquiries.deleteIds(ids);
    options.onBatch?.(ids);
    if (ids.length < FORGET_BATCH || options.goOn?.() === false) return total;
    // An abort ends the pause at once, and no further batch starts.
    const paused = await pause((options.restFactor ?? 1) * (performance.now() - started), true, { signal: options.signal }).catch(() => false);
    if (!paused) return total;
  }
}
