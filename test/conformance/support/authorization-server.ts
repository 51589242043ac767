// Starts Portico as an authorization server whose PUBLIC_URL is its real loopback origin (strict clients check the issuer).
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll } from 'vitest';
import type { DepsOptions } from '../../../src/deps.js';
import { freePort, startApp, type TestApp } from '../../support/app.js';
import type { Clock } from '../../../src/ports/clock.js';
import { OAuthTestClient } from './oauth-client.js';

/** oauth4webapi refuses plain http unless told: the suite runs on loopback http. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** Rate limits are off unless the suite asks for them: every request here comes from 127.0.0.1. */
export async function startAuthorizationServer(env: Record<string, string> = {}, options: DepsOptions = {}): Promise<TestApp> {
  return startApp({ RATE_LIMITS: 'off', ...env }, { ...options, port: await freePort() });
}

/** RFC 8414 section 3: what a strict client learns from the metadata, checked against the exact issuer. */
export async function discover(api: TestApp): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(api.url);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
}

/** A clock the test moves forward, for lifetimes (D4) without fake timers. */
export function movableClock(): Clock & { advance(seconds: number): void } {
  let offsetMs = 0;
  return {
    now: () => Date.now() + offsetMs,
    advance(seconds) {
      offsetMs += seconds * 1000;
    },
  };
}

/** For a describe block: an authorization server started before its tests and closed after, with a test client. */
export function authorizationServerForSuite(env: Record<string, string> = {}): { readonly api: TestApp; readonly http: OAuthTestClient } {
  const suite = {} as { api: TestApp; http: OAuthTestClient };
  beforeAll(async () => {
    suite.api = await startAuthorizationServer(env);
    suite.http = new OAuthTestClient(suite.api.url);
  });
  afterAll(() => suite.api.close());
  return suite;
}
