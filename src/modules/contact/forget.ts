// Deleting inquiries for good, with what was kept beside them (the outbox copy of their e-mail): for
// retention, `inquiries purge` and `inquiries erase`. A batch at a time, so that memory and each write
// stay bounded however many match; after each batch, a rest, so that the requests served beside a long
// deletion (in this process or another) keep most of the database's and the file system's time.
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
  /**
   * The rest after each batch, as a multiple of the time it took: 1 (the default) gives a deletion half
   * of the time, as a command beside the server has; 3 gives it a quarter, as the job inside a serving
   * node has, whose deletions share the node's event loop and core with the requests.
   */
  rest?: number;
}

/**
 * Deletes every inquiry that matches, and returns how many. Files go before rows: a process stopped in
 * between leaves rows that the next run finds again, never a file whose row is gone.
 */
export async function forgetInquiries(deps: ForgetDeps, filter: InquiryFilter, options: ForgetOptions = {}): Promise<number> {
  const rest = options.rest ?? 1;
  let total = 0;
  for (;;) {
    const started = performance.now();
    const ids = await deps.inquiries.idsMatching(filter, FORGET_BATCH);
    await deps.removeOutboxCopies(ids);
    total += await deps.inquiries.deleteIds(ids);
    options.onBatch?.(ids);
    if (ids.length < FORGET_BATCH) return total;
    await pause((performance.now() - started) * rest);
  }
}
