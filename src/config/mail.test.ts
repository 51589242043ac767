// The delivery settings as loadConfig reads them: one line naming the setting and the fix for each mistake.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const dir = mkdtempSync(join(tmpdir(), 'portico-config-mail-'));
const pem = (name: string, kind: string) => {
  const file = join(dir, name);
  writeFileSync(file, `-----BEGIN ${kind}-----\nMIIB\n-----END ${kind}-----\n`);
  return file;
};
const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('the environment was accepted');
};
const OAUTH2 = {
  SMTP_OAUTH2_CLIENT_ID: 'app',
  SMTP_OAUTH2_CLIENT_SECRET: 'secret',
  SMTP_OAUTH2_REFRESH_TOKEN: 'refresh',
  SMTP_OAUTH2_TOKEN_URL: 'https://login.microsoftonline.com/tenant/oauth2/v2.0/token',
};
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

describe('the SMTP settings', () => {
  it('defaults to 5 connections, unlimited messages each, the system CAs, TLS required only with credentials, and the host name in EHLO', () => {
    expect(loadConfig({ SMTP_URL: 'smtp://relay.internal:25' }).delivery.smtp).toEqual({
      host: 'relay.internal',
      port: 25,
      implicitTls: false,
      user: undefined,
      password: undefined,
      maxConnections: 5,
      maxMessages: Infinity,
      requireTls: false,
      tlsCa: undefined,
      tlsServername: undefined,
      tlsInsecure: false,
      ehloName: hostname(),
      oauth2: undefined,
    });
    expect(loadConfig({ SMTP_URL: 'smtp://u:p@relay.internal' }).delivery.smtp).toMatchObject({ port: 587, requireTls: true });
    expect(loadConfig({ SMTP_URL: 'smtps://relay.internal' }).delivery.smtp).toMatchObject({ port: 465, implicitTls: true });
  });

  it('reads every SMTP_* setting', () => {
    const ca = pem('ca.pem', 'CERTIFICATE');
    const smtp = loadConfig({
      SMTP_URL: 'smtp://relay.internal:2525',
      SMTP_MAX_CONNECTIONS: '3',
      SMTP_MAX_MESSAGES: '100',
      SMTP_TLS_CA_FILE: ca,
      SMTP_REQUIRE_TLS: 'true',
      SMTP_TLS_SERVERNAME: 'mail.example.com',
      SMTP_EHLO_NAME: 'portico.example.com',
    }).delivery.smtp;
    expect(smtp).toMatchObject({ maxConnections: 3, maxMessages: 100, requireTls: true, tlsServername: 'mail.example.com', ehloName: 'portico.example.com' });
    expect(smtp?.tlsCa).toContain('BEGIN CERTIFICATE');
  });

  it('reads XOAUTH2 with the mailbox user from SMTP_URL', () => {
    const smtp = loadConfig({ SMTP_URL: 'smtp://team%40example.com@smtp.office365.com:587', ...OAUTH2 }).delivery.smtp;
    expect(smtp).toMatchObject({ user: 'team@example.com', password: undefined, requireTls: true, oauth2: { clientId: 'app', tokenUrl: OAUTH2.SMTP_OAUTH2_TOKEN_URL } });
  });

  it.each([
    ['a path', { SMTP_URL: 'smtp://relay.internal/x' }, /^SMTP_URL takes no path; a \/ .* must be percent-encoded \(\/ as %2F\)/],
    [
      'an unencoded / in the password',
      { SMTP_URL: 'smtp://mailer:ab/cd@relay.internal' },
      /^SMTP_URL is not a valid URL: smtp:\/\/user:pass@host:587 or smtps:\/\/user:pass@host:465; a \/ .* must be percent-encoded \(\/ as %2F\)/,
    ],
    ['an unencoded / in a numeric password', { SMTP_URL: 'smtp://mailer:1234/56@relay.internal' }, /^SMTP_URL takes no path/],
    ['a query', { SMTP_URL: 'smtp://relay.internal?requireTLS=true' }, /^SMTP_URL takes no query options/],
    ['a password that is not percent-encoding', { SMTP_URL: 'smtp://mailer:50%zz@relay.internal' }, /^SMTP_URL has a user name or password that is not valid percent-encoding/],
    ['another scheme', { SMTP_URL: 'http://relay.internal' }, /^SMTP_URL must use smtp:\/\/ or smtps:\/\//],
    ['a setting without SMTP_URL', { SMTP_MAX_CONNECTIONS: '3' }, /^SMTP_MAX_CONNECTIONS has no effect without SMTP_URL/],
    ['0 connections', { SMTP_URL: 'smtp://r.internal', SMTP_MAX_CONNECTIONS: '0' }, /^SMTP_MAX_CONNECTIONS must be an integer from 1 to 100/],
    ['a CA file that is not there', { SMTP_URL: 'smtp://r.internal', SMTP_TLS_CA_FILE: '/nonexistent/ca.pem' }, /^SMTP_TLS_CA_FILE cannot be read: ENOENT/],
    ['a CA file that holds no certificate', { SMTP_URL: 'smtp://r.internal', SMTP_TLS_CA_FILE: pem('key.pem', 'PRIVATE KEY') }, /^SMTP_TLS_CA_FILE must be a PEM file holding a certificate/],
    ['TLS unchecked for a remote relay', { SMTP_URL: 'smtp://relay.example.com', SMTP_TLS_INSECURE: 'true' }, /^SMTP_TLS_INSECURE is allowed only for a relay on loopback/],
    ['TLS turned off with credentials', { SMTP_URL: 'smtp://u:p@relay.internal', SMTP_REQUIRE_TLS: 'false' }, /^SMTP_REQUIRE_TLS cannot be false while SMTP_URL carries credentials/],
    ['a yes for a boolean', { SMTP_URL: 'smtp://r.internal', SMTP_REQUIRE_TLS: 'yes' }, /^SMTP_REQUIRE_TLS must be true or false/],
    ['an EHLO name with a space', { SMTP_URL: 'smtp://r.internal', SMTP_EHLO_NAME: 'my host' }, /^SMTP_EHLO_NAME must be a host name/],
    ['half of XOAUTH2', { SMTP_URL: 'smtp://u@r.internal', SMTP_OAUTH2_CLIENT_ID: 'app' }, /^SMTP_OAUTH2_CLIENT_SECRET, SMTP_OAUTH2_REFRESH_TOKEN, SMTP_OAUTH2_TOKEN_URL are required/],
    ['XOAUTH2 without a user', { SMTP_URL: 'smtp://r.internal', ...OAUTH2 }, /^SMTP_URL must name the mailbox user/],
    ['XOAUTH2 beside a password', { SMTP_URL: 'smtp://u:p@r.internal', ...OAUTH2 }, /^SMTP_URL carries a password, but XOAUTH2 is configured/],
    ['a token URL in clear', { SMTP_URL: 'smtp://u@r.internal', ...OAUTH2, SMTP_OAUTH2_TOKEN_URL: 'http://login.example.com/token' }, /^SMTP_OAUTH2_TOKEN_URL must be an https:\/\/ URL/],
  ])('refuses %s in one line', (_, env, message) => {
    expect(refusal(env)).toMatch(message);
  });

  it('never echoes the password of a refused SMTP_URL', () => {
    expect(refusal({ SMTP_URL: 'smtp://mailer:hunter2/x@relay.internal' })).not.toContain('hunter2');
  });
});

describe('DKIM, the webhook, retries and acknowledgements', () => {
  it('reads DKIM_* with the key from its file', () => {
    const key = pem('dkim.pem', 'PRIVATE KEY');
    expect(loadConfig({ DKIM_DOMAIN: 'portico.example', DKIM_SELECTOR: 's2026', DKIM_PRIVATE_KEY_FILE: key }).delivery.dkim).toEqual({
      domain: 'portico.example',
      selector: 's2026',
      privateKey: expect.stringContaining('BEGIN PRIVATE KEY'),
    });
  });

  it.each([
    ['half of DKIM', { DKIM_DOMAIN: 'portico.example' }, /^DKIM_SELECTOR, DKIM_PRIVATE_KEY_FILE are required with the other DKIM_\* settings/],
    ['a selector with a dot at its end', { DKIM_DOMAIN: 'portico.example', DKIM_SELECTOR: 's.', DKIM_PRIVATE_KEY_FILE: '/x' }, /^DKIM_SELECTOR must be a DNS label/],
    ['a webhook without its secret', { WEBHOOK_URL: 'https://crm.example.com/hooks/portico' }, /^WEBHOOK_SECRET is required with WEBHOOK_URL/],
    [
      'a secret without whsec_',
      { WEBHOOK_URL: 'https://crm.example.com/h', WEBHOOK_SECRET: Buffer.alloc(32).toString('base64') },
      /^WEBHOOK_SECRET must be whsec_ followed by 24 to 64 bytes in base64/,
    ],
    ['a short secret', { WEBHOOK_URL: 'https://crm.example.com/h', WEBHOOK_SECRET: 'whsec_c2hvcnQ=' }, /^WEBHOOK_SECRET must be whsec_/],
    ['a webhook that is not http', { WEBHOOK_URL: 'ftp://crm.example.com/h', WEBHOOK_SECRET: SECRET }, /^WEBHOOK_URL must be an http:\/\/ or https:\/\/ URL/],
    ['a secret without a webhook', { WEBHOOK_SECRET: SECRET }, /^WEBHOOK_SECRET has no effect without WEBHOOK_URL/],
    ['a retry period in weeks', { MAIL_RETRY_FOR: '2w' }, /^MAIL_RETRY_FOR must be a duration such as 30m, 24h or 7d/],
    ['a retry period over 30 days', { MAIL_RETRY_FOR: '31d' }, /^MAIL_RETRY_FOR must be at most 30 days/],
    ['acknowledgements said yes', { MAIL_ACKNOWLEDGE: 'yes' }, /^MAIL_ACKNOWLEDGE must be on or off/],
  ])('refuses %s in one line', (_, env, message) => {
    expect(refusal(env)).toMatch(message);
  });

  it('reads the webhook secret as the bytes its base64 holds, retries for 24 h and sends no acknowledgements by default', () => {
    const { delivery } = loadConfig({ WEBHOOK_URL: 'https://crm.example.com/hooks/portico', WEBHOOK_SECRET: SECRET });
    expect(delivery.webhook).toEqual({ url: 'https://crm.example.com/hooks/portico', secret: Buffer.alloc(32, 7) });
    expect(delivery.retryForMs).toBe(24 * 3_600_000);
    expect(delivery.acknowledge).toBe(false);
    expect(loadConfig({ MAIL_RETRY_FOR: '90m', MAIL_ACKNOWLEDGE: 'on' }).delivery).toMatchObject({ retryForMs: 90 * 60_000, acknowledge: true });
  });

  it('lets production deliver by webhook alone, but not by the outbox folder', () => {
    const production = { APP_ENV: 'production', PUBLIC_URL: 'https://api.portico.example', MAIL_FROM: 'web@portico.example', MAIL_TO: 'team@portico.example' };
    expect(refusal(production)).toMatch(/^SMTP_URL is required when APP_ENV=production unless WEBHOOK_URL is set/);
    expect(loadConfig({ ...production, WEBHOOK_URL: 'https://crm.example.com/h', WEBHOOK_SECRET: SECRET }).delivery.smtp).toBeUndefined();
  });
});
