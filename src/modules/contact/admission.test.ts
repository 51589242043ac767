// Admission (D19): a few inquiries at once, a bounded line behind them in arrival order, and a refusal
// (server_busy, having done nothing) when the line is full or a wait runs out.
import { describe, expect, it } from 'vitest';
import { Admission } from './admission.js';

/** Work that runs until `finish()` is called, saying when it started. */
function held(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    work: async () => {
      log.push(`${name} started`);
      await done;
      return name;
    },
    finish: () => finish(),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Admission', () => {
  it('runs as many at once as it has places, and the next in arrival order as each finishes', async () => {
    const admission = new Admission({ inFlight: 2, waiting: 10, waitMs: 10_000 });
    const log: string[] = [];
    const works = ['a', 'b', 'c', 'd'].map((name) => held(log, name));
    const results = works.map(({ work }) => admission.admit(work));
    await tick();
    expect(log).toEqual(['a started', 'b started']);
    works[1]!.finish();
    await tick();
    expect(log).toEqual(['a started', 'b started', 'c started']);
    works[0]!.finish();
    await tick();
    expect(log.at(-1)).toBe('d started');
    works[2]!.finish();
    works[3]!.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('refuses at once, running nothing, a newcomer that finds the line full', async () => {
    const admission = new Admission({ inFlight: 1, waiting: 1, waitMs: 10_000 });
    const log: string[] = [];
    const [first, second, third] = ['first', 'second', 'third'].map((name) => held(log, name));
    const running = [admission.admit(first!.work), admission.admit(second!.work)];
    await expect(admission.admit(third!.work)).rejects.toMatchObject({ code: 'server_busy', status: 503, headers: { 'Retry-After': '2' } });
    expect(log).not.toContain('third started');
    first!.finish();
    second!.finish();
    await Promise.all(running);
  });

  it('refuses one whose wait runs out, and gives the place to the next in line, never to a newcomer', async () => {
    const admission = new Admission({ inFlight: 1, waiting: 5, waitMs: 50 });
    const log: string[] = [];
    const [first, late, next, newcomer] = ['first', 'late', 'next', 'newcomer'].map((name) => held(log, name));
    const running = admission.admit(first!.work);
    const refused = admission.admit(late!.work);
    await expect(refused).rejects.toMatchObject({ code: 'server_busy' });
    const waiting = admission.admit(next!.work);
    first!.finish();
    const overtaking = admission.admit(newcomer!.work);
    await tick();
    expect(log).toEqual(['first started', 'next started']);
    next!.finish();
    await tick();
    expect(log.at(-1)).toBe('newcomer started');
    newcomer!.finish();
    expect(await Promise.all([running, waiting, overtaking])).toEqual(['first', 'next', 'newcomer']);
  });

  it('gives its place back when the work fails', async () => {
    const admission = new Admission({ inFlight: 1, waiting: 0, waitMs: 10 });
    await expect(admission.admit(() => Promise.reject(new Error('relay refused')))).rejects.toThrow('relay refused');
    await expect(admission.admit(async () => 'after')).resolves.toBe('after');
  });
});
