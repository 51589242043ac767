// The authorization endpoint (RFC 6749 section 4.1.1, RFC 7636, RFC 9207): request -> consent -> code.
import { AppError } from '../../errors.js';
import { isMetadataDocumentClientId, type Client } from '../../ports/oauth-store.js';
import type { Reply } from '../common/route-spec.js';
import { chooseLocale, WORDS, type PageWords } from './consent-i18n.js';
import { consentPage, errorPage, type HtmlPage } from './consent-page.js';
import { findClient } from './find-client.js';
import { grantedScopes, resolveResource } from './issue-tokens.js';
import { CODE_TTL_SECONDS, CONSENT_TTL_SECONDS, type OAuthDeps } from './oauth-deps.js';
import { isLoopbackUri, matchesRegistered } from './redirect-uris.js';
import { newSecret, sha256 } from './secrets.js';
import { uuidV7 } from '../../ports/random.js';

export interface BrowserRequest {
  params: Readonly<Record<string, unknown>>;
  acceptLanguage: string | undefined;
  cookie: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
}

// RFC 7636 section 4.2: BASE64URL(SHA256(verifier)) is 43 characters; allow the full ABNF range.
const CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;
const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'ui_locales'];

/** GET (or POST) /oauth/authorize with the request parameters: the consent page, or an error. */
export async function requestAuthorization(deps: OAuthDeps, http: BrowserRequest): Promise<Reply> {
  const locale = chooseLocale(http.params.ui_locales, http.acceptLanguage);
  const words = WORDS[locale];
  const { params } = http;
  const nonce = deps.random.bytes(16).toString('base64');

  // D7: until client and redirect URI are known good, errors stay on our origin (RFC 6749 4.1.2.1).
  let client: Client | undefined;
  try {
    client = typeof params.client_id === 'string' ? await findClient(deps, params.client_id) : undefined;
  } catch (error) {
    // D13: a metadata document that cannot be used; its redirect URIs are unverified, so the page says why.
    if (error instanceof AppError) return html(errorPage(400, locale, words, words.badMetadata, nonce, error.description));
    throw error;
  }
  if (!client) return html(errorPage(400, locale, words, words.unknownClient, nonce));
  const redirectUri = params.redirect_uri;
  if (typeof redirectUri !== 'string' || !matchesRegistered(redirectUri, client.redirectUris)) {
    return html(errorPage(400, locale, words, words.badRedirect, nonce));
  }

  const state = typeof params.state === 'string' ? params.state : undefined;
  const fail = (error: string, description: string) => redirect(deps, redirectUri, 302, { error, error_description: description, state });
  const repeated = AUTHORIZE_PARAMS.find((name) => Array.isArray(params[name]));
  if (repeated) return fail('invalid_request', `${repeated} must not be repeated`);
  // RFC 6749 appendix A.5 allows only printable characters in state (we keep non-ASCII ones, which
  // clients do send); control characters are refused before the state is stored with the consent.
  if (state !== undefined && /[\u0000-\u001f\u007f-\u009f]/.test(state)) return fail('invalid_request', 'state must not contain control characters (RFC 6749 appendix A.5)');
  if (params.response_type !== 'code') {
    return params.response_type === undefined ? fail('invalid_request', 'response_type is required') : fail('unsupported_response_type', 'response_type must be code');
  }
  if (!client.grantTypes.includes('authorization_code')) return fail('unauthorized_client', 'this client is not registered for authorization_code');
  if (typeof params.code_challenge !== 'string' || !CHALLENGE.test(params.code_challenge)) return fail('invalid_request', 'code_challenge is required (PKCE, RFC 7636)');
  if (params.code_challenge_method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
  let scopes;
  let resource;
  try {
    scopes = grantedScopes(typeof params.scope === 'string' ? params.scope : undefined, client.scope);
    resource = resolveResource(deps, params.resource, scopes);
  } catch (error) {
    if (error instanceof AppError) return fail(error.code, error.description);
    throw error;
  }

  const consentId = newSecret(deps.random);
  const browserId = readCookie(http.cookie, cookieName(deps)) ?? newSecret(deps.random);
  await deps.store.createConsent({
    idHash: sha256(consentId),
    browserHash: sha256(browserId),
    clientId: client.clientId,
    redirectUri,
    scope: scopes.join(' '),
    resource,
    codeChallenge: params.code_challenge,
    state: state ?? null,
    expiresAt: deps.clock.now() + CONSENT_TTL_SECONDS * 1000,
  });
  const view = consentPage({
    locale,
    words,
    clientName: client.clientName,
    ...(isMetadataDocumentClientId(client.clientId) ? { documentHost: new URL(client.clientId).host, loopbackOnly: client.redirectUris.every(isLoopbackUri) } : {}),
    redirectHost: hostOf(redirectUri),
    scopes,
    consentId,
    formAction: formAction(redirectUri),
    nonce,
  });
  return { ...html(view), headers: { ...view.headers, 'set-cookie': browserCookie(deps, browserId) } };
}

/** POST /oauth/authorize with `consent` and `decision`: a code, or access_denied, back to the client. */
export async function decide(deps: OAuthDeps, http: BrowserRequest): Promise<Reply> {
  // The page's own language travels with the form, so its errors read in the same language.
  const locale = chooseLocale(http.params.locale, http.acceptLanguage);
  const words: PageWords = WORDS[locale];
  const nonce = deps.random.bytes(16).toString('base64');
  const refuse = (status: number, message: string) => html(errorPage(status, locale, words, message, nonce));

  // Cross-site submissions: the Fetch metadata and Origin a browser sends say where the form came from.
  const ours = new URL(deps.issuer).origin;
  const sameOrigin = http.secFetchSite === undefined || http.secFetchSite === 'same-origin';
  // `Origin: null` comes from privacy-minded referrer policies; Sec-Fetch-Site still vouches for it.
  const originOk = http.origin === undefined || http.origin === ours || (http.origin === 'null' && http.secFetchSite === 'same-origin');
  if (!sameOrigin || !originOk) return refuse(403, words.crossSite);
  const consentId = http.params.consent;
  const consent = typeof consentId === 'string' ? await deps.store.consumeConsent(sha256(consentId), deps.clock.now()) : undefined;
  if (!consent) return refuse(400, words.consentUsed);
  const browserId = readCookie(http.cookie, cookieName(deps));
  // The consent is spent either way: a page submitted from another browser burns it.
  if (!browserId || sha256(browserId) !== consent.browserHash) return refuse(403, words.crossSite);

  const state = consent.state ?? undefined;
  if (http.params.decision !== 'approve') {
    return redirect(deps, consent.redirectUri, 303, { error: 'access_denied', error_description: 'the visitor denied the request', state });
  }
  const code = newSecret(deps.random);
  const now = deps.clock.now();
  const grantId = uuidV7(now, deps.random);
  await deps.store.createCode(
    {
      codeHash: sha256(code),
      grantId,
      clientId: consent.clientId,
      redirectUri: consent.redirectUri,
      codeChallenge: consent.codeChallenge,
      scope: consent.scope,
      resource: consent.resource,
      expiresAt: now + CODE_TTL_SECONDS * 1000,
    },
    { grantId, clientId: consent.clientId, scope: consent.scope, resource: consent.resource, createdAt: now },
  );
  return redirect(deps, consent.redirectUri, 303, { code, state });
}

/** RFC 9207: every authorization response names the issuer. */
function redirect(deps: OAuthDeps, uri: string, status: 302 | 303, params: Record<string, string | undefined>): Reply {
  const url = new URL(uri);
  for (const [name, value] of Object.entries<string | undefined>({ ...params, iss: deps.issuer })) if (value !== undefined) url.searchParams.append(name, value);
  return { status, headers: { location: url.href, 'cache-control': 'no-store' } };
}

const html = (page: HtmlPage): Reply => ({ status: page.status, body: page.body, headers: page.headers, contentType: page.headers['content-type'] });

const secure = (deps: OAuthDeps) => deps.issuer.startsWith('https:');
// __Host- (RFC 6265bis): Secure, Path=/, no Domain, so no subdomain can plant or read it.
const cookieName = (deps: OAuthDeps) => (secure(deps) ? '__Host-portico_browser' : 'portico_browser');
const browserCookie = (deps: OAuthDeps, value: string) => `${cookieName(deps)}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${CONSENT_TTL_SECONDS}${secure(deps) ? '; Secure' : ''}`;

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

function hostOf(uri: string): string {
  const url = new URL(uri);
  return url.host || url.protocol;
}

/** The CSP form-action sources: ourselves and the redirect target's origin, or its scheme. */
function formAction(redirectUri: string): string {
  const url = new URL(redirectUri);
  return `'self' ${url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol}`;
}
