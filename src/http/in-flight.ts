// Route handlers still running. A client that disconnects does not stop its handler (an inquiry being
// sent is still sent, and must still be recorded), so shutdown waits for them before closing the stores.
export class InFlight {
  private count = 0;
  private readonly waiting: (() => void)[] = [];

  begin(): void {
    this.count++;
  }

  end(): void {
    if (--this.count === 0) for (const resolve of this.waiting.splice(0)) resolve();
  }

  /** Resolves when no handler is running. */
  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }
}
