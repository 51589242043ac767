import { describe, expect, it } from 'vitest';
import type { Random } from '../../ports/random.js';
import { AnswerFloor } from './answer-floor.js';

/** A clock that moves only when told, and randomness that draws the given indexes in turn. */
function fixture(draws: number[]) {
  let now = 1_000_000;
  const clock = { now: () => now };
  const random: Random = {
    uuid: () => '00000000-0000-4000-8000-000000000000',
    bytes: (length) => {
      const bytes = Buffer.alloc(length);
      bytes.writeUInt32BE(draws.shift() ?? 0, 0);
      return bytes;
    },
  };
  return { floor: new AnswerFloor(clock, random), advance: (ms: number) => (now += ms), now: () => now };
}

/** How long `keptBack` took in real time, in ms. */
async function took(work: Promise<void>): Promise<number> {
  const started = performance.now();
  await work;
  return performance.now() - started;
}

describe('the answer floor of inquiries kept back', () => {
  it('answers at once on a node that has delivered nothing yet', async () => {
    const { floor, now } = fixture([]);
    expect(await took(floor.keptBack(now()))).toBeLessThan(20);
  });

  it('waits as long as the recent delivery it draws took, counted from the inquiry’s arrival', async () => {
    const { floor, advance, now } = fixture([1]);
    const first = now();
    advance(10);
    floor.delivered(first); // took 10 ms
    const second = now();
    advance(120);
    floor.delivered(second); // took 120 ms
    expect(await took(floor.keptBack(now()))).toBeGreaterThanOrEqual(110);
  });

  it('waits only for what is left of the drawn time when the inquiry already took some of it', async () => {
    const { floor, advance, now } = fixture([0, 0]);
    const delivered = now();
    advance(200);
    floor.delivered(delivered);
    const arrived = now();
    advance(150);
    const left = await took(floor.keptBack(arrived));
    expect(left).toBeGreaterThanOrEqual(45);
    expect(left).toBeLessThan(120);
    advance(300);
    expect(await took(floor.keptBack(arrived))).toBeLessThan(20);
  });
});
