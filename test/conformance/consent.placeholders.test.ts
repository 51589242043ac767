// The consent page fills its translations without String.prototype.replace's `$` patterns: a client name or
// a redirect host holding `$&`, `` $` `` or `$'` is shown exactly as it is, in every locale.
import { describe, expect, it } from 'vitest';
import { LOCALES } from '../../src/modules/common/locales.js';
import { WORDS } from '../../src/modules/oauth/consent-i18n.js';
import { authorizationServerForSuite } from './support/authorization-server.js';

const NAME = "Acme $` $& $' Co";
const REDIRECT = "https://trusted.example$`.evil$'.example/cb";
const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/'/g, '&#39;');

describe('consent page text with $ patterns', () => {
  const suite = authorizationServerForSuite();

  it.each(LOCALES)('shows the client name and redirect host verbatim in %s', async (locale) => {
    const client = await suite.http.registerClient({ client_name: NAME, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    const host = new URL(REDIRECT).host;
    const page = await suite.http.openAuthorization(suite.http.authorizationUrl(client).url, { acceptLanguage: locale });
    const html = await page.text();
    expect(page.status).toBe(200);
    const words = WORDS[locale];
    expect(html).toContain(escaped(words.intro).replace('{client}', () => `<strong>${escaped(NAME)}</strong>`));
    expect(html).toContain(escaped(words.returnTo).replace('{host}', () => `<strong>${escaped(host)}</strong>`));
  });
});
