// One log line per key (an address, a host) and time window, whatever the number of events behind it.
import type { Clock } from '../../ports/clock.js';

/** What a caller logs, at most once per key and window: how many events the line stands for. */
export type OncePerWindow = (key: string) => number | undefined;

/**
 * A gate for log lines about hostile traffic: the first event of a key in a window passes, with the count of
 * the events of that key the previous window swallowed (so the line can say "and 311 more"); the rest of the
 * window is counted, not logged. At most `maxKeys` keys are remembered: a flood from many addresses cannot
 * grow the map, and when it is full the oldest key is forgotten (its next event logs again).
 */
export function oncePerWindow(clock: Clock, windowMs: number, maxKeys = 10_000): OncePerWindow {
  const seen = new Map<string, { since: number; swallowed: number }>();
  return (key) => {
    const now = clock.now();
    const entry = seen.get(key);
    if (entry !== undefined && now - entry.since < windowMs) {
      entry.swallowed++;
      return undefined;
    }
    const swallowed = entry?.swallowed ?? 0;
    // Re-inserted, so that the map's first key is the one logged longest ago.
    seen.delete(key);
    if (seen.size >= maxKeys) seen.delete(seen.keys().next().value!);
    seen.set(key, { since: now, swallowed: 0 });
    return swallowed;
  };
}
