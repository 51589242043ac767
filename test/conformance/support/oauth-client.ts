// A test client with protocol verbs over raw HTTP: register, authorize and consent, exchange, refresh, revoke.
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { inquiry } from '../../support/app.js';

export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method: 'client_secret_basic' | 'client_secret_post' | 'none';
  redirect_uris: string[];
  grant_types: string[];
  scope: string;
  [metadata: string]: unknown;
}

/** One browser's cookie jar: the consent step is bound to the browser that saw the page (D7). */
export interface Browser {
  cookie?: string;
  acceptLanguage?: string;
}

export interface AuthorizationRequest {
  redirectUri?: string;
  scope?: string;
  /** null sends no state at all. */
  state?: string | null;
  resource?: string;
  /** Any other query parameter, or an override (e.g. code_challenge_method). */
  extra?: Record<string, string>;
}

export interface AuthorizationResult {
  callback: URL;
  code: string;
  verifier: string;
  redirectUri: string;
  state: string | null;
}

export type Form = Record<string, string | string[] | undefined>;

/** RFC 7636 section 4.1-4.2: a 256-bit verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: s256(verifier) };
}

export const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** RFC 6749 section 2.3.1: each part application/x-www-form-urlencoded, then base64. */
export function basic(clientId: string, clientSecret: string): string {
  const encode = (part: string) => new URLSearchParams([['', part]]).toString().slice(1);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

/** The value of the consent page's hidden `consent` input. */
export function consentIdOf(html: string): string {
  const id = /<input type="hidden" name="consent" value="([^"]+)">/.exec(html)?.[1];
  if (!id) throw new Error(`no consent input in the page:\n${html}`);
  return id;
}

/** The `name=value` pair a Set-Cookie header sets, for sending back in Cookie. */
export function cookieOf(response: Response): string | undefined {
  return response.headers.get('set-cookie')?.split(';', 1)[0];
}

export function formBody(form: Form): URLSearchParams {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) body.append(name, item);
  }
  return body;
}

export class OAuthTestClient {
  constructor(readonly baseUrl: string) {}

  /** RFC 7591 section 3.1. */
  register(metadata: Record<string, unknown>): Promise<Response> {
    return fetch(`${this.baseUrl}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
  }

  async registerClient(metadata: Record<string, unknown>): Promise<RegisteredClient> {
    const response = await this.register(metadata);
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(201);
    return body as RegisteredClient;
  }

  /** A confidential web client for the code flow, with refresh tokens. */
  registerWebClient(metadata: Record<string, unknown> = {}): Promise<RegisteredClient> {
    return this.registerClient({ client_name: 'Web app', redirect_uris: ['https://app.example/callback'], grant_types: ['authorization_code', 'refresh_token'], ...metadata });
  }

  /** A confidential machine client. */
  registerMachineClient(metadata: Record<string, unknown> = {}): Promise<RegisteredClient> {
    return this.registerClient({ client_name: 'Machine', grant_types: ['client_credentials'], ...metadata });
  }

  /** RFC 6749 section 4.1.1 with RFC 7636 section 4.3: the authorization request URL. */
  authorizationUrl(client: RegisteredClient, request: AuthorizationRequest = {}): { url: URL; verifier: string; redirectUri: string; state: string | null } {
    const { verifier, challenge } = pkcePair();
    const redirectUri = request.redirectUri ?? client.redirect_uris[0]!;
    const state = request.state === undefined ? randomBytes(8).toString('hex') : request.state;
    const url = new URL(`${this.baseUrl}/oauth/authorize`);
    const params: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: request.scope,
      state: state ?? undefined,
      resource: request.resource,
      ...request.extra,
    };
    for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
    return { url, verifier, redirectUri, state };
  }

  /** The browser opens the authorization URL; it keeps the cookie the page sets. */
  async openAuthorization(url: URL | string, browser: Browser = {}): Promise<Response> {
    const response = await fetch(url, { redirect: 'manual', headers: this.browserHeaders(browser) });
    browser.cookie = cookieOf(response) ?? browser.cookie;
    return response;
  }

  /**
   * The browser submits the consent form from our own page (same origin). By default it sends the
   * page's origin in Origin; consent.test.ts also checks the `Origin: null` a no-referrer page gets.
   */
  submitConsent(consent: string, decision: 'approve' | 'deny', browser: Browser = {}, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.baseUrl}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(this.baseUrl).origin, 'sec-fetch-site': 'same-origin', ...this.browserHeaders(browser), ...headers },
      body: formBody({ consent, decision }),
    });
  }

  /** The whole front channel: open the page, decide, and follow the redirect back to the client. */
  async authorizeAndConsent(client: RegisteredClient, request: AuthorizationRequest = {}, decision: 'approve' | 'deny' = 'approve'): Promise<AuthorizationResult> {
    const { url, verifier, redirectUri, state } = this.authorizationUrl(client, request);
    const callback = await this.consentInBrowser(url, decision);
    return { callback, code: callback.searchParams.get('code') ?? '', verifier, redirectUri, state };
  }

  /** A visitor opens any authorization URL, reads the hidden `consent` input, decides; the URL the browser is sent back to. */
  async consentInBrowser(url: URL | string, decision: 'approve' | 'deny' = 'approve'): Promise<URL> {
    const browser: Browser = {};
    const page = await this.openAuthorization(url, browser);
    const html = await page.text();
    expect(page.status, html || `redirected to ${page.headers.get('location')}`).toBe(200);
    const decided = await this.submitConsent(consentIdOf(html), decision, browser);
    expect(decided.status, await decided.clone().text()).toBe(303);
    return new URL(decided.headers.get('location')!);
  }

  /** POST /oauth/token with exactly this form and these headers. */
  token(form: Form, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.baseUrl}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: formBody(form) });
  }

  /** POST /oauth/token authenticated the way the client registered (RFC 6749 section 2.3.1). */
  tokenAs(client: RegisteredClient, form: Form, secret = client.client_secret): Promise<Response> {
    return this.token(...this.authenticate(client, form, secret));
  }

  /** RFC 6749 section 4.1.3. */
  exchange(client: RegisteredClient, result: Pick<AuthorizationResult, 'code' | 'verifier' | 'redirectUri'>, extra: Form = {}): Promise<Response> {
    return this.tokenAs(client, { grant_type: 'authorization_code', code: result.code, redirect_uri: result.redirectUri, code_verifier: result.verifier, ...extra });
  }

  /** Authorize, approve and exchange: the tokens of a fresh grant. */
  async approvedTokens(client: RegisteredClient, request: AuthorizationRequest = {}): Promise<{ access_token: string; refresh_token: string; scope: string; resource: string }> {
    const response = await this.exchange(client, await this.authorizeAndConsent(client, request));
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body;
  }

  /** RFC 6749 section 6. */
  refresh(client: RegisteredClient, refreshToken: string, extra: Form = {}): Promise<Response> {
    return this.tokenAs(client, { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra });
  }

  /** RFC 7009 section 2.1. */
  revoke(client: RegisteredClient, token: string, extra: Form = {}, secret = client.client_secret): Promise<Response> {
    const [form, headers] = this.authenticate(client, { token, ...extra }, secret);
    return fetch(`${this.baseUrl}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: formBody(form) });
  }

  /** A protected resource call: POST /api/contact, with a Bearer token when given (RFC 6750 section 2.1). */
  contact(accessToken?: string, fields: Record<string, unknown> = {}): Promise<Response> {
    return fetch(`${this.baseUrl}/api/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(accessToken === undefined ? {} : { authorization: `Bearer ${accessToken}` }) },
      body: JSON.stringify(inquiry(fields)),
    });
  }

  private authenticate(client: RegisteredClient, form: Form, secret: string | undefined): [Form, Record<string, string>] {
    if (client.token_endpoint_auth_method === 'client_secret_basic') return [form, { authorization: basic(client.client_id, secret ?? '') }];
    if (client.token_endpoint_auth_method === 'client_secret_post') return [{ ...form, client_id: client.client_id, client_secret: secret }, {}];
    return [{ ...form, client_id: client.client_id }, {}];
  }

  private browserHeaders(browser: Browser): Record<string, string> {
    return { ...(browser.cookie ? { cookie: browser.cookie } : {}), ...(browser.acceptLanguage ? { 'accept-language': browser.acceptLanguage } : {}) };
  }
}
