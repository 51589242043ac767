// The jobs beside the server: stopping asks a long run to stop, and waits for it to have stopped.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startBackgroundJobs } from './background-jobs.js';

describe('startBackgroundJobs', () => {
  it('asks a run in progress to stop when stopped, and waits until it has', async () => {
    let stoppedAt: number | undefined;
    const jobs = startBackgroundJobs({ logger: pino({ level: 'silent' }) }, [
      {
        name: 'a long deletion',
        intervalMs: 60_000,
        // Would go on for a minute, a step every 10 ms, unless asked to stop.
        run: async (signal) => {
          for (let step = 0; step < 6_000 && !signal.aborted; step++) await new Promise((resolve) => setTimeout(resolve, 10));
          stoppedAt = performance.now();
        },
      },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const asked = performance.now();
    await jobs.stop();
    expect(stoppedAt).toBeGreaterThanOrEqual(asked);
    expect(performance.now() - asked).toBeLessThan(1_000);
  });
});
