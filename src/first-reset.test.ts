import { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resetOneConnection } from './first-reset.js';

describe('the first connection reset, before serving', () => {
  afterEach(() => vi.restoreAllMocks());

  it('has node:net handle a real ECONNRESET, as it will a client’s', async () => {
    const emit = vi.spyOn(Socket.prototype, 'emit');
    await resetOneConnection();
    const calls = emit.mock.calls as unknown as [string, unknown][];
    const errors = calls.filter(([name]) => name === 'error').map(([, error]) => (error as NodeJS.ErrnoException).code);
    expect(errors).toEqual(['ECONNRESET']);
  });

  it('takes a few milliseconds and leaves nothing open', async () => {
    const before = process.getActiveResourcesInfo().filter((kind) => kind.startsWith('TCP'));
    const started = performance.now();
    await resetOneConnection();
    expect(performance.now() - started).toBeLessThan(1_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(process.getActiveResourcesInfo().filter((kind) => kind.startsWith('TCP'))).toEqual(before);
  });
});
