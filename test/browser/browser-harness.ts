// Debian's Chromium through playwright-core, a loopback "client site" that records its redirects, and OAuth helpers.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import type { TestApp } from '../support/app.js';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/** Says, once per file, that `file`'s browser tests are skipped when Debian's chromium is missing. */
export function sayWhenSkipped(file: string): void {
  if (!hasChromium) console.warn(`SKIPPED ${file}: ${CHROMIUM} is missing. Install Debian's chromium (as .ci/run does) to run the browser tests.`);
}

/** Headless, with no network of its own: this machine reaches only loopback and the package registries. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** The OAuth client's own web site: `/cb` records each query it receives and answers 200 'done'. */
export interface ClientSite {
  origin: string;
  redirectUri: string;
  /** The query strings `/cb` received, oldest first. */
  received: URLSearchParams[];
  /** An HTML page on this (other) origin that frames `src`. */
  framing(src: string): string;
  close(): Promise<void>;
}

export async function startClientSite(): Promise<ClientSite> {
  const received: URLSearchParams[] = [];
  const frames = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://client.invalid');
    if (url.pathname === '/cb') {
      received.push(url.searchParams);
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('done');
      return;
    }
    const src = frames.get(url.pathname);
    if (src === undefined) {
      response.writeHead(404).end();
      return;
    }
    const html = `<!doctype html><html lang="en"><title>Framing test</title><iframe id="consent" src="${src.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}" width="600" height="600"></iframe></html>`;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    redirectUri: `${origin}/cb`,
    received,
    framing(src) {
      const path = `/frame-${frames.size + 1}`;
      frames.set(path, src);
      return `${origin}${path}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface RegisteredClient {
  clientId: string;
  clientSecret: string;
  clientName: string;
}

/** POST /oauth/register: a confidential client (client_secret_basic) with the code and refresh grants. */
export async function registerClient(api: TestApp, clientName: string, redirectUri: string): Promise<RegisteredClient> {
  const response = await api.post('/oauth/register', { client_name: clientName, redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'] });
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${await response.text()}`);
  const body = await response.json();
  return { clientId: body.client_id, clientSecret: body.client_secret, clientName };
}

/** A PKCE pair (RFC 7636 section 4.1-4.2): a 43-character verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface AuthorizeRequest {
  client: RegisteredClient;
  redirectUri: string;
  scope: string;
  state: string;
  challenge: string;
  uiLocales?: string;
}

export function authorizeUrl(api: TestApp, request: AuthorizeRequest): string {
  const url = new URL('/oauth/authorize', api.url);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: request.client.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scope,
    state: request.state,
    code_challenge: request.challenge,
    code_challenge_method: 'S256',
    ...(request.uiLocales ? { ui_locales: request.uiLocales } : {}),
  }).toString();
  return url.href;
}

/** POST /oauth/token: the authorization_code grant, authenticated with HTTP Basic. */
export function exchangeCode(api: TestApp, client: RegisteredClient, code: string, redirectUri: string, verifier: string): Promise<Response> {
  const basic = Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64');
  return fetch(`${api.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier }).toString(),
  });
}

/** A fresh random `state`, as a client would send. */
export const newState = () => randomBytes(12).toString('base64url');
