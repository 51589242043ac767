// application/x-www-form-urlencoded bodies as objects; a repeated name becomes an array, so schemas
// can refuse it (RFC 6749 section 3.2: "Request and response parameters MUST NOT be included more than once").
import type { FastifyInstance } from 'fastify';

/** A form body as an object without a prototype; a name sent more than once maps to the array of its values. */
export function parseForm(body: string): Record<string, string | string[]> {
  const form = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(body)) {
    const seen = form[name];
    form[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return form;
}

/** Makes `app` parse application/x-www-form-urlencoded bodies with parseForm, on every route. */
export function installFormParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, parseForm(body as string));
  });
}
