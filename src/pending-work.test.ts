import { describe, expect, it } from 'vitest';
import { PendingWork } from './pending-work.js';

describe('PendingWork', () => {
  it('is finished at once with nothing started', async () => {
    await new PendingWork().finished();
  });

  it('is finished only once the work started, and the work started meanwhile, has settled, failed or not', async () => {
    const pending = new PendingWork();
    const settled: string[] = [];
    pending.start(new Promise<void>((resolve) => setTimeout(() => (settled.push('first'), resolve()), 20)));
    pending.start(
      new Promise<void>((_, reject) =>
        setTimeout(() => {
          settled.push('failed');
          pending.start(new Promise<void>((resolve) => setTimeout(() => (settled.push('started meanwhile'), resolve()), 20)));
          reject(new Error('relay refused'));
        }, 10),
      ),
    );
    await pending.finished();
    expect(settled).toEqual(['failed', 'first', 'started meanwhile']);
  });
});
