import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.js';

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

describe('Semaphore', () => {
  it('gives out as many places as it has, then makes the next taker wait for a release', async () => {
    const places = new Semaphore(2);
    const first = await places.take(never());
    await places.take(never());
    const third = places.take(never());
    expect(await settled(third)).toBe(false);
    first();
    expect(await settled(third)).toBe(true);
  });

  it('serves waiters in the order they came', async () => {
    const places = new Semaphore(1);
    const release = await places.take(never());
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) => places.take(never()).then((next) => (order.push(n), next())));
    release();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
  });

  it('lets a waiter whose signal aborts leave with its reason, without holding a place', async () => {
    const places = new Semaphore(1);
    const release = await places.take(never());
    const deadline = new AbortController();
    const leaving = places.take(deadline.signal);
    const staying = places.take(never());
    deadline.abort(new Error('too late'));
    await expect(leaving).rejects.toThrow('too late');
    release();
    const next = await staying;
    next();
    // The place came back once: one taker gets it at once, the second waits.
    await places.take(never());
    expect(await settled(places.take(never()))).toBe(false);
  });

  it('refuses at once a taker whose signal has already aborted', async () => {
    await expect(new Semaphore(1).take(AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });

  it('counts a place released twice once', async () => {
    const places = new Semaphore(1);
    const release = await places.take(never());
    release();
    release();
    await places.take(never());
    expect(await settled(places.take(never()))).toBe(false);
  });

  it('gives a place now when one is free, and none while every one is held, without joining the line', async () => {
    const places = new Semaphore(1);
    const release = places.tryTake()!;
    expect(places.tryTake()).toBeUndefined();
    expect(places.waiting).toBe(0);
    const waiter = places.take(never());
    expect(places.waiting).toBe(1);
    release();
    expect(await settled(waiter)).toBe(true);
    expect(places.waiting).toBe(0);
  });

  it('hands a place given back to the one in line, not to a newcomer asking at once', async () => {
    const places = new Semaphore(1);
    const release = places.tryTake()!;
    const waiter = places.take(never());
    release();
    expect(places.tryTake()).toBeUndefined();
    (await waiter)();
    expect(places.tryTake()).toBeDefined();
  });
});
