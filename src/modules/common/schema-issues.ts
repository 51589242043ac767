// A schema's refusal in words, the same on every door: every problem at once, each after the field it is
// about, so that a client can fix its request in one round trip.
import type * as z from 'zod';

/** What a Standard Schema's validate returns. Every schema here is synchronous. */
export type Validation = Exclude<ReturnType<z.ZodType['~standard']['validate']>, Promise<unknown>>;
export type Issues = NonNullable<Validation['issues']>;

/** `schema`'s verdict on `value`, the issues as data. */
export function validate(schema: z.ZodType, value: unknown): Validation {
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) throw new Error('schemas must be synchronous');
  return result;
}

const pathOf = (issue: Issues[number]) => (issue.path ?? []).map((segment) => String(typeof segment === 'object' ? segment.key : segment));

/** "email: must be a valid e-mail address; privacy: must be true". */
export function describeIssues(issues: Issues): string {
  return issues
    .map((issue) => {
      const path = pathOf(issue);
      const where = path.length && !issue.message.startsWith(path[0]!) ? `${path.join('.')}: ` : '';
      return `${where}${issue.message}`;
    })
    .join('; ');
}

/** The top-level fields at fault, each once, in the order of the issues. */
export function issueFields(issues: Issues): string[] {
  return [...new Set(issues.flatMap((issue) => pathOf(issue).slice(0, 1)))];
}
