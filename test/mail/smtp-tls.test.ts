// smtpMailer's TLS and sign-in settings against real servers on loopback: STARTTLS (RFC 3207) and
// implicit TLS (RFC 8314), a private CA (SMTP_TLS_CA_FILE), SMTP_TLS_SERVERNAME, SMTP_TLS_INSECURE,
// SMTP_REQUIRE_TLS, and AUTH (RFC 4954) with the URL's percent-encoded credentials.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import type { SMTPServerOptions } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MailDeliveryError, type Mailer } from '../../src/ports/mailer.js';
import { inquiry } from '../support/app.js';
import { mailMessage as message } from '../support/mail-message.js';
import { startServe } from '../support/serve-process.js';
import { mailerFromSettings } from '../support/smtp-mailer.js';
import { makeCertificate, OPENSSL, startRealSmtpServer, startScriptedSmtpServer, type Certificate, type RealSmtpServer } from '../support/smtp-tls.js';

const hasOpenssl = existsSync(OPENSSL);
if (!hasOpenssl) console.warn('SKIPPED test/mail/smtp-tls.test.ts: /usr/bin/openssl is missing.');

type Seen = { method?: string; username?: string; password?: string | null; secure?: boolean };
const user = 'ana@portico.example';
const pass = 'p@ss:w%rd/ü 50%';
const credentials = `${encodeURIComponent(user)}:${encodeURIComponent(pass)}`;
const withCredentials = (url: string, login = credentials) => url.replace(/^(smtps?):\/\//, `$1://${login}@`);

const opened: { close(): Promise<unknown> }[] = [];
const track = <T extends { close(): Promise<unknown> }>(thing: T): T => (opened.push(thing), thing);
const mailerFor = (url: string, env: Record<string, string> = {}): Mailer => track(mailerFromSettings(url, env));
const failure = (mailer: Mailer) =>
  mailer.send(message()).then(
    () => undefined,
    (error: unknown) => error as MailDeliveryError,
  );
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});

describe.skipIf(!hasOpenssl)('smtpMailer over TLS', () => {
  let dir: string;
  /** One names only the address 127.0.0.1, the other only the name localhost. */
  let forAddress: Certificate;
  let forName: Certificate;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-smtp-tls-'));
    [forAddress, forName] = await Promise.all([makeCertificate(dir, '127.0.0.1'), makeCertificate(dir, 'localhost')]);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** smtp-server with STARTTLS (or implicit TLS), taking AUTH only over TLS and mail only after AUTH. */
  const startAuthServer = async (certificate: Certificate, seen: Seen[], options: SMTPServerOptions = {}): Promise<RealSmtpServer> =>
    track(
      await startRealSmtpServer({
        key: certificate.key,
        cert: certificate.cert,
        authOptional: false,
        onAuth({ method, username, password }, session, callback) {
          seen.push({ method, username, password, secure: session.secure });
          if (username === user && password === pass) callback(null, { user });
          else callback(Object.assign(new Error('5.7.8 invalid credentials'), { responseCode: 535 }));
        },
        ...options,
      }),
    );

  it.each(['PLAIN', 'LOGIN'])('signs in with AUTH %s after STARTTLS, as the exact user and password the URL percent-encodes, trusting SMTP_TLS_CA_FILE', async (method) => {
    const seen: Seen[] = [];
    const server = await startAuthServer(forAddress, seen, { authMethods: [method] });
    await mailerFor(withCredentials(server.url), { SMTP_TLS_CA_FILE: forAddress.certPath }).send(message());
    expect(seen).toEqual([{ method, username: user, password: pass, secure: true }]);
    expect(server.sessions.map((s) => s.secure)).toEqual([true]);
  });

  it('fails with the authentication error and delivers nothing when the server refuses the credentials', async () => {
    const seen: Seen[] = [];
    const server = await startAuthServer(forAddress, seen);
    const error = await failure(mailerFor(withCredentials(server.url, `${encodeURIComponent(user)}:wrong`), { SMTP_TLS_CA_FILE: forAddress.certPath }));
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect(error?.message).toMatch(/EAUTH .*535/);
    expect(server.raw).toEqual([]);
  });

  it('never sends credentials to a server that offers no STARTTLS: it stops before AUTH', async () => {
    const seen: Seen[] = [];
    const server = await startAuthServer(forAddress, seen, { disabledCommands: ['STARTTLS'], allowInsecureAuth: true });
    const error = await failure(mailerFor(withCredentials(server.url)));
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect(seen).toEqual([]);
    expect(server.raw).toEqual([]);
  });

  it('sends nothing in clear with SMTP_REQUIRE_TLS=true and no credentials, to a server that offers no STARTTLS', async () => {
    const server = track(await startRealSmtpServer({ disabledCommands: ['STARTTLS'] }));
    expect(await failure(mailerFor(server.url, { SMTP_REQUIRE_TLS: 'true' }))).toBeInstanceOf(MailDeliveryError);
    expect(server.raw).toEqual([]);
    await mailerFor(server.url).send(message());
    expect(server.raw).toHaveLength(1);
  });

  it.each([
    ['implicit TLS (smtps://)', true],
    ['STARTTLS', false],
  ])('fails and delivers nothing over %s with a certificate it does not trust, never falling back to plaintext', async (_, secure) => {
    const server = track(await startRealSmtpServer({ secure, key: forAddress.key, cert: forAddress.cert }));
    const error = await failure(mailerFor(server.url, { SMTP_REQUIRE_TLS: 'true' }));
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect(error?.message).toMatch(/self-signed certificate/);
    expect(server.raw).toEqual([]);
  });

  it.each([
    ['implicit TLS (smtps://)', true],
    ['STARTTLS', false],
  ])('refuses over %s a trusted certificate for another name, and takes it when SMTP_TLS_SERVERNAME names it', async (_, secure) => {
    const server = track(await startRealSmtpServer({ secure, key: forName.key, cert: forName.cert }));
    const env = { SMTP_TLS_CA_FILE: forName.certPath, SMTP_REQUIRE_TLS: 'true' };
    expect((await failure(mailerFor(server.url, env)))?.message).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID|does not match|not in the cert's altnames/);
    expect(server.raw).toEqual([]);
    await mailerFor(server.url, { ...env, SMTP_TLS_SERVERNAME: 'localhost' }).send(message());
    expect(server.sessions.map((s) => s.secure)).toEqual([true]);
  });

  it('delivers over a certificate it cannot check only with SMTP_TLS_INSECURE=true, to a relay on loopback', async () => {
    const server = track(await startRealSmtpServer({ secure: true, key: forName.key, cert: forName.cert }));
    await mailerFor(server.url, { SMTP_TLS_INSECURE: 'true' }).send(message());
    expect(server.sessions.map((s) => s.secure)).toEqual([true]);
  });

  it('does not take a reply injected in plaintext after "220 ready to start TLS" as the answer to its EHLO over TLS (RFC 3207 section 4.2)', async () => {
    // A man in the middle appends a reply to the server's 220 on the first connection; the real server
    // answers every command 200 ms late. A client that read the injected line as the answer to its
    // EHLO over TLS sends MAIL FROM before the real answer came. Dropping the connection or the line is fine.
    let connections = 0;
    const server = track(await startScriptedSmtpServer({ tls: forName, afterStarttls: () => (++connections === 1 ? '250 injected before TLS\r\n' : ''), replyDelayMs: 200 }));
    const mailer = mailerFor(server.url.replace('127.0.0.1', 'localhost'), { SMTP_TLS_CA_FILE: forName.certPath, SMTP_REQUIRE_TLS: 'true' });
    await mailer.send(message()).catch(() => {});
    await mailer.send(message());
    expect(server.sessions.some((s) => s.secure && s.received > 0)).toBe(true);
    expect(
      server.sessions.map((s) => s.beforeTheirTurn),
      'commands sent before the server had answered the one before',
    ).toEqual(server.sessions.map(() => []));
  }, 30_000);

  it('delivers an inquiry through portico serve over implicit TLS to a relay with a private CA and credentials', async () => {
    const seen: Seen[] = [];
    const server = await startAuthServer(forAddress, seen, { secure: true });
    const node = await startServe({
      DATABASE_URL: `sqlite:${join(dir, 'serve.sqlite')}`,
      SMTP_URL: withCredentials(server.url),
      SMTP_TLS_CA_FILE: forAddress.certPath,
      MAIL_FROM: 'web@portico.example',
      MAIL_TO: 'team@portico.example',
      RATE_LIMITS: 'off',
    });
    try {
      const response = await fetch(`${node.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(inquiry()) });
      expect(response.status, node.output()).toBe(200);
      expect(seen).toEqual([{ method: 'PLAIN', username: user, password: pass, secure: true }]);
      expect((await simpleParser(server.raw[0]!)).text).toContain('We manage 40 buildings');
    } finally {
      node.child.kill('SIGTERM');
      await node.exited;
    }
  });
});
