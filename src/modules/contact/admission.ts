// How many inquiries one node works on at once (D19): a few at a time, a bounded line behind them, and a
// refusal at once beyond the line.
import { AppError } from '../../errors.js';
import { Semaphore, type Release } from '../../semaphore.js';

export interface AdmissionLimits {
  /** Inquiries stored and delivered at once. */
  inFlight: number;
  /** Inquiries waiting for a place; beyond, a newcomer is refused at once. */
  waiting: number;
  /** How long one waits for a place before it is refused. */
  waitMs: number;
}

/**
 * Each inquiry in flight holds a database write and a message being composed and sent; 64 keep the relay
 * pool and the database busy without the node's memory growing with the load. One waiting holds only its
 * parsed request: a line of 1,024 lets a burst through at the pace the node can deliver, where refusing
 * every newcomer at once would answer a client that retries without waiting thousands of times a second,
 * and starve the inquiries in flight of the CPU (docs/design.md, "Overload"). A second is the most one
 * waits: more work than the node does in a second is not a burst of a site's leads but a flood, which a
 * longer wait would only answer later, and whoever is refused has waited that second before retrying.
 */
export const ADMISSION_LIMITS: AdmissionLimits = { inFlight: 64, waiting: 1_024, waitMs: 1_000 };
/** What a refused sender is told to wait. */
const RETRY_AFTER_SECONDS = '2';

const serverBusy = () =>
  new AppError('server_busy', `this node is working on as many inquiries as it takes at once; nothing was stored; retry in ${RETRY_AFTER_SECONDS} s`, {
    'Retry-After': RETRY_AFTER_SECONDS,
  });

/** Inquiries being stored and delivered on this node, and those waiting for a place, in arrival order. */
export class Admission {
  private readonly places: Semaphore;

  constructor(private readonly limits: AdmissionLimits = ADMISSION_LIMITS) {
    this.places = new Semaphore(limits.inFlight);
  }

  /** Runs `work` once there is a place for it; throws server_busy, having done nothing, when there is none. */
  async admit<T>(work: () => Promise<T>): Promise<T> {
    const release = this.places.tryTake() ?? (await this.placeInLine());
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** A place handed over by an inquiry that finished, within the wait; server_busy when the line is full or the wait ran out. */
  private async placeInLine(): Promise<Release> {
    if (this.places.waiting >= this.limits.waiting) throw serverBusy();
    try {
      return await this.places.take(AbortSignal.timeout(this.limits.waitMs));
    } catch {
      throw serverBusy();
    }
  }
}
