// A fixed number of places, taken in turn: what bounds the inquiries a node works on at once
// (modules/contact/admission.ts) and the requests an HTTP client has out at once (adapters/form-poster.ts).

/** Gives back a place; a second call does nothing. */
export type Release = () => void;

/**
 * At most `places` holders at once; the others wait in arrival order, and a place given back goes straight
 * to the first of them, never to a newcomer. A waiter whose signal aborts leaves the line with the signal's
 * reason and never holds a place.
 */
export class Semaphore {
  private free: number;
  private readonly line: ((release: Release) => void)[] = [];

  constructor(places: number) {
    this.free = places;
  }

  /** How many wait in line. */
  get waiting(): number {
    return this.line.length;
  }

  /** A place now, or undefined when every one is held. */
  tryTake(): Release | undefined {
    if (this.free === 0) return undefined;
    this.free--;
    return this.releaser();
  }

  /** A place, once one is free; rejects with the signal's reason if it aborts first. */
  take(signal: AbortSignal): Promise<Release> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    const now = this.tryTake();
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const turn = (release: Release) => {
        signal.removeEventListener('abort', leave);
        resolve(release);
      };
      const leave = () => {
        this.line.splice(this.line.indexOf(turn), 1);
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', leave, { once: true });
      this.line.push(turn);
    });
  }

  /** A place handed straight to the next waiter, or back to the pool when nobody waits. */
  private releaser(): Release {
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const next = this.line.shift();
      if (next) next(this.releaser());
      else this.free++;
    };
  }
}
