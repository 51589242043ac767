// SHUTDOWN_DRAIN: how long a node told to stop still serves while /readyz says it is going (D22).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('SHUTDOWN_DRAIN', () => {
  it('is 0 by default (one node has no balancer to tell), and any duration up to a minute', () => {
    expect(loadConfig({}).shutdownDrainMs).toBe(0);
    expect(loadConfig({ SHUTDOWN_DRAIN: '5s' }).shutdownDrainMs).toBe(5_000);
    expect(loadConfig({ SHUTDOWN_DRAIN: '1m' }).shutdownDrainMs).toBe(60_000);
  });

  it.each([
    ['5', 'SHUTDOWN_DRAIN must be a duration such as 0s, 5s or 15s (got "5")'],
    ['2m', 'SHUTDOWN_DRAIN must be at most 60s: a balancer that checks /readyz every few seconds notices well within it (got "2m")'],
  ])('refuses %s in one line', (value, line) => {
    expect(() => loadConfig({ SHUTDOWN_DRAIN: value })).toThrow(new ConfigError([line]));
  });
});
