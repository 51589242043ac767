// Work a request starts and answers without waiting for (an acknowledgement e-mail): a node that stops
// waits for it as it waits for the requests, instead of closing the mailer and the database under it.

export class PendingWork {
  private readonly running = new Set<Promise<void>>();

  /** Keeps `work` until it settles; it handles its own failures (a rejection is not reported here). */
  start(work: Promise<void>): void {
    this.running.add(work);
    const done = () => void this.running.delete(work);
    work.then(done, done);
  }

  /** Resolves once all the work started so far, and any it started meanwhile, has settled. */
  async finished(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled(this.running);
  }
}
