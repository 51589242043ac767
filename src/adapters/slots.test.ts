import { describe, expect, it } from 'vitest';
import { Slots } from './slots.js';

const never = () => new AbortController().signal;
const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('slots', () => {
  it('gives out as many places as it has, then makes the next taker wait for a release', async () => {
    const slots = new Slots(2);
    const first = await slots.take(never());
    await slots.take(never());
    const third = slots.take(never());
    expect(await settled(third)).toBe(false);
    first();
    expect(await settled(third)).toBe(true);
  });

  it('serves waiters in the order they came', async () => {
    const slots = new Slots(1);
    const release = await slots.take(never());
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) => slots.take(never()).then((next) => (order.push(n), next())));
    release();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
  });

  it('lets a waiter whose signal aborts leave with its reason, without holding a place', async () => {
    const slots = new Slots(1);
    const release = await slots.take(never());
    const deadline = new AbortController();
    const leaving = slots.take(deadline.signal);
    const staying = slots.take(never());
    deadline.abort(new Error('too late'));
    await expect(leaving).rejects.toThrow('too late');
    release();
    const next = await staying;
    next();
    // The place came back once: one taker gets it at once, the second waits.
    await slots.take(never());
    expect(await settled(slots.take(never()))).toBe(false);
  });

  it('refuses at once a taker whose signal has already aborted', async () => {
    await expect(new Slots(1).take(AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });

  it('counts a place released twice once', async () => {
    const slots = new Slots(1);
    const release = await slots.take(never());
    release();
    release();
    await slots.take(never());
    expect(await settled(slots.take(never()))).toBe(false);
  });
});
