// How many inquiries one node works on at once (D19): a few at a time, a bounded line behind them, and a
// refusal at once beyond the line.
import { AppError } from '../../errors.js';

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
  private busy = 0;
  private readonly line: (() => void)[] = [];

  constructor(private readonly limits: AdmissionLimits = ADMISSION_LIMITS) {}

  /** Runs `work` once there is a place for it; throws server_busy, having done nothing, when there is none. */
  async admit<T>(work: () => Promise<T>): Promise<T> {
    if (this.busy < this.limits.inFlight) this.busy++;
    else await this.placeInLine();
    try {
      return await work();
    } finally {
      // The place goes straight to the first in line, so that a newcomer cannot overtake it.
      const next = this.line.shift();
      if (next) next();
      else this.busy--;
    }
  }

  /** Resolves holding a place handed over by an inquiry that finished. */
  private placeInLine(): Promise<void> {
    if (this.line.length >= this.limits.waiting) return Promise.reject(serverBusy());
    return new Promise((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.line.splice(this.line.indexOf(turn), 1);
        reject(serverBusy());
      }, this.limits.waitMs);
      this.line.push(turn);
    });
  }
}
