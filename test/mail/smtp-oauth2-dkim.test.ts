// What a team relaying through Microsoft 365 or Google Workspace, or sending from its own domain, needs:
// XOAUTH2 with a refresh token (SMTP_OAUTH2_*) against smtp-server and a loopback token endpoint, and
// DKIM signatures (DKIM_*, RFC 6376) that the mailauth package verifies (tools/dkim-verify).
import { existsSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { outboxMailer } from '../../src/adapters/mail/outbox-mailer.js';
import { loadConfig } from '../../src/config/config.js';
import type { Mailer } from '../../src/ports/mailer.js';
import { mailMessage as message } from '../support/mail-message.js';
import { mailerFromSettings } from '../support/smtp-mailer.js';
import { makeCertificate, OPENSSL, startRealSmtpServer, type Certificate } from '../support/smtp-tls.js';
import { importTestTool } from '../support/tools.js';

const hasOpenssl = existsSync(OPENSSL);
if (!hasOpenssl) console.warn('SKIPPED the XOAUTH2 tests of test/mail/smtp-oauth2-dkim.test.ts: /usr/bin/openssl is missing.');

// mailauth is no part of an install of Portico (tools/dkim-verify): what the tests use of it, as 4.13 declares it.
type DkimResult = { status: { result: string }; signingDomain: string; info: string };
type DkimVerify = (message: Buffer, options: { resolver: (name: string, type: string) => Promise<string[][]> }) => Promise<{ results: DkimResult[] }>;
const mailauth = await importTestTool<{ dkimVerify: DkimVerify }>('dkim-verify', 'node_modules/mailauth/lib/dkim/verify.js');
const dkimVerify: DkimVerify = (message, options) => mailauth!.dkimVerify(message, options);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portico-oauth2-dkim-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const opened: { close(): Promise<unknown> }[] = [];
const track = <T extends { close(): Promise<unknown> }>(thing: T): T => (opened.push(thing), thing);
const mailerFor = (url: string, env: Record<string, string> = {}): Mailer => track(mailerFromSettings(url, env));
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});

/** An OAuth 2.0 token endpoint (RFC 6749 section 6) that hands out a new access token on every refresh. */
async function startTokenEndpoint(expiresIn: number) {
  const requests: URLSearchParams[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      requests.push(new URLSearchParams(body));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ access_token: `access-${requests.length}`, token_type: 'Bearer', expires_in: expiresIn }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth2/v2.0/token`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!hasOpenssl)('XOAUTH2 (SMTP_OAUTH2_*)', () => {
  let certificate: Certificate;
  beforeAll(async () => {
    certificate = await makeCertificate(dir, '127.0.0.1');
  });

  it('gets an access token with the refresh token, signs in with it, and gets a new one once it expired', async () => {
    const tokens = track(await startTokenEndpoint(2));
    const seen: { username: string | undefined; accessToken: string | undefined }[] = [];
    const server = track(
      await startRealSmtpServer({
        key: certificate.key,
        cert: certificate.cert,
        authOptional: false,
        authMethods: ['XOAUTH2'],
        onAuth({ username, accessToken }, _session, callback) {
          seen.push({ username, accessToken });
          callback(null, { user: username });
        },
      }),
    );
    const mailer = mailerFor(server.url.replace('smtp://', 'smtp://team%40portico.example@'), {
      SMTP_TLS_CA_FILE: certificate.certPath,
      SMTP_MAX_MESSAGES: '1',
      SMTP_OAUTH2_CLIENT_ID: 'portico-app',
      SMTP_OAUTH2_CLIENT_SECRET: 'app-secret',
      SMTP_OAUTH2_REFRESH_TOKEN: 'refresh-1',
      SMTP_OAUTH2_TOKEN_URL: tokens.url,
    });
    await mailer.send(message());
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await mailer.send(message());
    expect(server.raw).toHaveLength(2);
    expect(tokens.requests.map((r) => Object.fromEntries(r))).toEqual([
      { grant_type: 'refresh_token', client_id: 'portico-app', client_secret: 'app-secret', refresh_token: 'refresh-1' },
      { grant_type: 'refresh_token', client_id: 'portico-app', client_secret: 'app-secret', refresh_token: 'refresh-1' },
    ]);
    expect(seen).toEqual([
      { username: 'team@portico.example', accessToken: 'access-1' },
      { username: 'team@portico.example', accessToken: 'access-2' },
    ]);
  }, 15_000);
});

describe.skipIf(!mailauth)('DKIM signing (DKIM_*)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const dnsRecord = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
  // The selector's TXT record (RFC 6376 section 3.6.2.2), as a DNS server would answer it.
  const resolver = async (name: string, type: string) => {
    if (type === 'TXT' && name === 'portico2026._domainkey.portico.example') return [[dnsRecord]];
    throw Object.assign(new Error(`no ${type} for ${name}`), { code: 'ENOTFOUND' });
  };
  const dkimEnv = async () => {
    const keyFile = join(dir, 'dkim.pem');
    await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    return { DKIM_DOMAIN: 'portico.example', DKIM_SELECTOR: 'portico2026', DKIM_PRIVATE_KEY_FILE: keyFile };
  };

  it('signs what it relays, and the signature verifies against the published key', async () => {
    const server = track(await startRealSmtpServer({ disabledCommands: ['STARTTLS'] }));
    await mailerFor(server.url, await dkimEnv()).send(message({ text: 'Línea uno.\n.\nLine three, with a trailing space \n' }));
    const { results } = await dkimVerify(Buffer.from(server.raw[0]!, 'latin1'), { resolver });
    expect(results.map((r: { status: { result: string }; signingDomain: string }) => [r.status.result, r.signingDomain])).toEqual([['pass', 'portico.example']]);
  });

  it('signs the development outbox files too, so a signature can be checked before going live', async () => {
    const { delivery } = loadConfig(await dkimEnv());
    const outbox = join(dir, 'outbox');
    const mail = message();
    await outboxMailer(outbox, delivery.dkim).send(mail);
    const { readFile } = await import('node:fs/promises');
    const { results } = await dkimVerify(await readFile(join(outbox, `${mail.headers['X-Portico-Inquiry-Id']}.eml`)), { resolver });
    expect(results.map((r: { status: { result: string } }) => r.status.result)).toEqual(['pass']);
  });

  it('fails verification once the message is altered, so the test can tell a signature from none', async () => {
    const server = track(await startRealSmtpServer({ disabledCommands: ['STARTTLS'] }));
    await mailerFor(server.url, await dkimEnv()).send(message());
    const altered = server.raw[0]!.replace('Could we see a demo?', 'Could we see a DEMO?');
    const { results } = await dkimVerify(Buffer.from(altered, 'latin1'), { resolver });
    // mailauth reports a body that no longer matches its hash as "neutral (body hash did not verify)".
    expect(results.map((r: { info: string }) => r.info)).toEqual([expect.stringMatching(/body hash did not verify/)]);
  });
});
