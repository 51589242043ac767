// Periodic upkeep beside the server: redelivering stalled inquiries, purging expired OAuth state.
import type { Deps } from './deps.js';

export interface BackgroundJob {
  name: string;
  intervalMs: number;
  run(): Promise<unknown>;
}

/** Runs each job now and then every `intervalMs`, never two runs of one job at once; stop() waits. */
export function startBackgroundJobs(deps: Pick<Deps, 'logger'>, jobs: readonly BackgroundJob[]): { stop(): Promise<void> } {
  const running = new Set<Promise<unknown>>();
  const timers = jobs.map((job) => {
    let busy = false;
    const tick = () => {
      if (busy) return;
      busy = true;
      const run = job
        .run()
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
      await Promise.allSettled([...running]);
    },
  };
}
