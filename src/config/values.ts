// Value parsers every settings module shares, so one kind of setting reads and fails the same way.

export type Fail = (name: string, problem: string, value?: string) => never;

/** An integer from 1 to `max`. */
export function parseCount(name: string, raw: string, fail: Fail, max = 1_000_000): number {
  const value = Number(raw);
  return /^\d+$/.test(raw) && value >= 1 && value <= max ? value : fail(name, `must be an integer from 1 to ${max}`, raw);
}

/** One of a few words, in any case, such as on/off or true/false: the word, lower-cased. */
export function parseSwitch(name: string, raw: string, allowed: readonly string[], fail: Fail): string {
  const value = raw.toLowerCase();
  return allowed.includes(value) ? value : fail(name, `must be ${allowed.join(' or ')}`, raw);
}
