// What a browser does on the consent page, over plain HTTP: read the form, keep its cookie, approve.
import { expect } from 'vitest';

/** Approves the consent page at `authorizationUrl` and returns the callback URL the visitor lands on. */
export async function approveConsent(authorizationUrl: URL | string): Promise<URL> {
  const page = await fetch(authorizationUrl, { headers: { 'accept-language': 'en' } });
  expect(page.status).toBe(200);
  const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
  const consent = /name="consent" value="([^"]+)"/.exec(await page.text())![1]!;
  const decision = await fetch(new URL('/oauth/authorize', authorizationUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: new URL(authorizationUrl).origin, 'sec-fetch-site': 'same-origin' },
    body: new URLSearchParams({ consent, decision: 'approve' }),
  });
  expect(decision.status).toBe(303);
  return new URL(decision.headers.get('location')!);
}
