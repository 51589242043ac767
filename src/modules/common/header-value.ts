// A request header passed on as information (User-Agent, Referer): one value, never a list.

/** The header's value; the first of a repeated one; undefined when it is absent or empty. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}
