// No timing oracle in screening (D20). An inquiry kept back (a duplicate, spam, a filled honeypot) is
// stored in a few milliseconds, one that goes out waits for the relay: from the answer's time alone a
// caller would learn whether an address sent a text within the duplicate window, or which terms and link
// counts are held. So an inquiry kept back is answered no sooner than one of the node's recent deliveries
// took, drawn at random from them: its answer's time comes from the same spread as a delivered one's.
import { setTimeout as pause } from 'node:timers/promises';
import type { Clock } from '../../ports/clock.js';
import type { Random } from '../../ports/random.js';

/** The deliveries a floor is drawn from: enough to follow the relay's spread, few enough to follow its changes. */
const RECENT = 64;
const TIMER_LATE_MS = 1;

export class AnswerFloor {
  private readonly recent: number[] = [];
  private next = 0;

  constructor(
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

  /** An inquiry that arrived at `arrivedAt` (ms since the epoch) was delivered and is answered now. */
  delivered(arrivedAt: number): void {
    this.recent[this.next] = Math.max(0, this.clock.now() - arrivedAt);
    this.next = (this.next + 1) % RECENT;
  }

  /**
   * Resolves when an inquiry kept back that arrived at `arrivedAt` may be answered: once as long has passed
   * as a recent delivery took, drawn at random; at once on a node that has delivered nothing yet.
   */
  async keptBack(arrivedAt: number): Promise<void> {
    if (!this.recent.length) return;
    const drawn = this.recent[this.random.bytes(4).readUInt32BE(0) % this.recent.length]!;
    // A timer fires a millisecond or so after it is due, and the clock counts whole milliseconds: without
    // this one less, kept-back answers came 1.2-1.6 ms after delivered ones on loopback, which told them
    // apart 56% of the time.
    const left = arrivedAt + drawn - this.clock.now() - TIMER_LATE_MS;
    if (left > 0) await pause(left);
  }
}
