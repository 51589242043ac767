// Secrets at rest (D4, RFC 6819 section 5.1.4.1.3): after real flows, no secret is in the SQLite file or the logs.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { startAuthorizationServer } from './support/authorization-server.js';
import { consentIdOf, OAuthTestClient, type Browser, type RegisteredClient } from './support/oauth-client.js';

describe('secrets at rest', () => {
  let api: TestApp;
  /** Every credential the flows below were shown, by what it is. */
  const secrets: Array<[kind: string, value: string]> = [];
  const keep = (kind: string, value: string | undefined) => {
    expect(value, kind).toEqual(expect.any(String));
    secrets.push([kind, value!]);
    return value!;
  };

  /** The front channel by hand, so the consent id and the browser cookie are kept too. */
  const consentAndCode = async (http: OAuthTestClient, client: RegisteredClient, decision: 'approve' | 'deny' = 'approve') => {
    const { url, verifier, redirectUri } = http.authorizationUrl(client);
    const browser: Browser = {};
    const consent = keep('consent id', consentIdOf(await (await http.openAuthorization(url, browser)).text()));
    keep('browser cookie', browser.cookie?.split('=')[1]);
    const location = new URL((await http.submitConsent(consent, decision, browser)).headers.get('location')!);
    return { code: location.searchParams.get('code') ?? '', verifier, redirectUri };
  };

  beforeAll(async () => {
    api = await startAuthorizationServer();
    const http = new OAuthTestClient(api.url);
    const web = await http.registerWebClient();
    keep('client secret (basic)', web.client_secret);
    const poster = await http.registerWebClient({ token_endpoint_auth_method: 'client_secret_post' });
    keep('client secret (post)', poster.client_secret);
    const machine = await http.registerMachineClient();
    keep('client secret (machine)', machine.client_secret);

    // Code, exchange, refresh twice, then a replay that revokes the grant.
    const granted = await consentAndCode(http, web);
    keep('authorization code', granted.code);
    const tokens = await (await http.exchange(web, granted)).json();
    keep('access token', tokens.access_token);
    keep('refresh token', tokens.refresh_token);
    const refreshed = await (await http.refresh(web, tokens.refresh_token)).json();
    keep('rotated access token', refreshed.access_token);
    keep('rotated refresh token', refreshed.refresh_token);
    const again = await (await http.refresh(web, refreshed.refresh_token)).json();
    keep('second rotated refresh token', again.refresh_token);
    await http.exchange(web, granted);

    // A code burnt by a failed PKCE check, a denied consent, client credentials and a revocation.
    const burnt = await consentAndCode(http, poster);
    keep('burnt authorization code', burnt.code);
    await http.exchange(poster, { ...burnt, verifier: 'x'.repeat(43) });
    await consentAndCode(http, web, 'deny');
    const machineToken = await (await http.tokenAs(machine, { grant_type: 'client_credentials' })).json();
    keep('client_credentials access token', machineToken.access_token);
    await http.revoke(machine, machineToken.access_token);
    keep('access token used at /api/contact', (await (await http.tokenAs(machine, { grant_type: 'client_credentials' })).json()).access_token);
    await http.contact(secrets.at(-1)![1]);
  });
  afterAll(() => api?.close());

  const databasePath = () => join(api.dir, 'portico.sqlite');

  // D4: secrets and tokens are stored only as SHA-256 hashes; RFC 6819 section 5.1.4.1.3: store hashes, not credentials.
  it('keeps no client secret, access token, refresh token, code or consent id in any table', () => {
    const db = new Database(databasePath(), { readonly: true, fileMustExist: true });
    try {
      const tables = db.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>;
      expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['oauth_clients', 'oauth_consents', 'oauth_codes', 'oauth_tokens', 'oauth_grants']));
      const cells: string[] = [];
      for (const { name } of tables) {
        for (const row of db.prepare(`select * from "${name.replace(/"/g, '""')}"`).all() as Array<Record<string, unknown>>) {
          for (const value of Object.values(row)) cells.push(Buffer.isBuffer(value) ? `${value.toString('hex')} ${value.toString('latin1')}` : String(value));
        }
      }
      const everything = cells.join('\n');
      for (const [kind, value] of secrets) expect(everything.includes(value), `${kind} is stored in clear`).toBe(false);
      // The hashes are there: the check above looked at the right rows.
      const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
      for (const [kind, value] of secrets) {
        expect(everything.includes(sha256(value)), `the SHA-256 of the ${kind} is stored`).toBe(true);
      }
    } finally {
      db.close();
    }
  });

  // The same, byte for byte, in the database file and its WAL: as text and as the decoded 256 bits.
  it('has no secret anywhere in the bytes of the database file and its WAL', () => {
    const files = ['', '-wal', '-shm'].map((suffix) => `${databasePath()}${suffix}`).filter((path) => existsSync(path));
    const bytes = Buffer.concat(files.map((path) => readFileSync(path)));
    for (const [kind, value] of secrets) {
      expect(bytes.includes(Buffer.from(value)), `${kind} is in the file as text`).toBe(false);
      expect(bytes.includes(Buffer.from(value, 'base64url')), `${kind} is in the file as raw bytes`).toBe(false);
    }
  });

  // D4 and DESIGN section 1 (logs): secrets and tokens are never logged.
  it('writes no secret to the logs', () => {
    const logs = api.logs.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const [kind, value] of secrets) expect(logs.includes(value), `${kind} is in the logs`).toBe(false);
  });
});
