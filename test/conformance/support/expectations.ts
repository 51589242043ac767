// Assertions shared by the conformance files: OAuth error bodies, error redirects and error pages.
import { expect } from 'vitest';

/** RFC 6749 section 5.2 as D9 shapes it: JSON {error, error_description, ok:false}, never cached. */
export async function expectOAuthError(response: Response, status: number, error: string): Promise<{ error: string; error_description: string }> {
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(body).toMatchObject({ error, ok: false });
  expect(typeof body.error_description).toBe('string');
  return body;
}

/** RFC 6749 section 4.1.2.1 with RFC 9207 section 2: back to the client with error, state (if sent) and iss. */
export function expectErrorRedirect(response: Response, expected: { to: string; error: string; state: string | null; iss: string }): URL {
  expect([302, 303]).toContain(response.status);
  const location = new URL(response.headers.get('location') ?? 'missing:');
  expect(location.href.split('?', 1)[0]).toBe(expected.to);
  expect(location.searchParams.get('error')).toBe(expected.error);
  expect(location.searchParams.get('iss')).toBe(expected.iss);
  expect(location.searchParams.has('state')).toBe(expected.state !== null);
  if (expected.state !== null) expect(location.searchParams.get('state')).toBe(expected.state);
  expect(location.searchParams.has('code')).toBe(false);
  return location;
}

/** D7: an error page on our own origin, never a redirect. */
export async function expectErrorPage(response: Response, status: number): Promise<string> {
  const html = await response.text();
  expect(response.status, html).toBe(status);
  expect(response.headers.get('location')).toBeNull();
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  expect(html).toContain('role="alert"');
  return html;
}
