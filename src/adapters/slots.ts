// A fixed number of places, taken in turn: what bounds the requests an HTTP client has out at once.

/** Gives back a place; a second call does nothing. */
export type Release = () => void;

/**
 * At most `size` holders at once; the others wait in arrival order. A waiter whose signal aborts leaves the
 * line with the signal's reason and never holds a place.
 */
export class Slots {
  private free: number;
  private readonly line: ((release: Release) => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  take(signal: AbortSignal): Promise<Release> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(this.releaser());
    }
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
