// Durations as operators write them (500ms, 5s, 2m, 24h, 30d), for settings and CLI flags alike.

const UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds, or undefined when `raw` is not a whole number followed by ms, s, m, h or d. */
export function durationMs(raw: string): number | undefined {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(raw);
  return match ? Number(match[1]) * UNITS_MS[match[2]!]! : undefined;
}
