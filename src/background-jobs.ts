// Periodic upkeep beside the server: redelivering stalled inquiries, purging expired OAuth state.
import type { Deps } from './deps.js';

export interface BackgroundJob {
  name: string;
  intervalMs: number;
  /** A long run stops at its next safe point once `signal` is aborted: the process is stopping. */
  run(signal: AbortSignal): Promise<unknown>;
}

/**
 * Runs each job now and then every `intervalMs`, never two runs of one job at once. stop() asks the
 * runs in progress to stop and waits for them: a shutdown must not wait for a retention job to delete
 * a month of inquiries (a container runtime kills the process 10 s after SIGTERM).
 */
export function startBackgroundJobs(deps: Pick<Deps, 'logger'>, jobs: readonly BackgroundJob[]): { stop(): Promise<void> } {
  const running = new Set<Promise<unknown>>();
  const stopping = new AbortController();
  const timers = jobs.map((job) => {
    let busy = false;
    const tick = () => {
      if (busy) return;
      busy = true;
      const run = job
        .run(stopping.signal)
        .catch((error: unknown) => deps.logger.error({ err: error, job: job.name }, 'background job failed'))
        .finally(() => {
          busy = false;
          running.delete(run);
        });
      running.add(run);
    };
    tick();
    const timer = setInterval(tick, job.intervalMs);
    timer.unref();
    return timer;
  });
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      stopping.abort();
      await Promise.allSettled([...running]);
    },
  };
}
