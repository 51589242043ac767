// Portico through Debian's Postfix, configured by this test as a private relay is in the field: STARTTLS
// with a certificate from a private CA (SMTP_TLS_CA_FILE) for a name other than the address Portico
// dials (SMTP_TLS_SERVERNAME), and SMTP AUTH checked by Dovecot (Postfix's usual SASL backend), offered
// only once the session is encrypted; it relays on to a sink on loopback. Needs root and the postfix
// and dovecot-core packages (.ci/run installs them); part of `npm run test:long`.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/cli-harness.js';
import { freePort, inquiry } from '../support/app.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { OPENSSL } from '../support/smtp-tls.js';

const MASTER = '/usr/lib/postfix/sbin/master';
const DOVECOT = '/usr/sbin/dovecot';
const missing = [MASTER, DOVECOT, OPENSSL].filter((file) => !existsSync(file));
const root = process.getuid?.() === 0;
if (missing.length || !root)
  console.warn(`SKIPPED test/long/postfix.test.ts: ${missing.length ? `${missing.join(', ')} missing` : 'not running as root'} (.ci/run installs postfix and dovecot-core).`);

const HOST = 'relay.portico.test';
const USER = 'web@portico.example';
// A `/` must be percent-encoded in SMTP_URL; Portico decodes it before AUTH.
const PASSWORD = 'relay/s3cret';
const smtpUrl = (port: number, password = PASSWORD) => `smtp://${encodeURIComponent(USER)}:${encodeURIComponent(password)}@127.0.0.1:${port}`;

/** Dovecot as an authentication service only: no mail protocols, one account, a TCP socket for Postfix. */
async function startDovecot(dir: string, port: number): Promise<ChildProcess> {
  const home = join(dir, 'dovecot');
  for (const folder of ['run', 'state']) await mkdir(join(home, folder), { recursive: true });
  await writeFile(join(home, 'users'), `${USER}:{PLAIN}${PASSWORD}\n`);
  await writeFile(
    join(home, 'dovecot.conf'),
    [
      'protocols =',
      `base_dir = ${join(home, 'run')}`,
      `state_dir = ${join(home, 'state')}`,
      `log_path = ${join(dir, 'dovecot.log')}`,
      'ssl = no',
      'auth_mechanisms = plain login',
      `passdb {\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%u ${join(home, 'users')}\n}`,
      'userdb {\n  driver = static\n  args = uid=nobody gid=nogroup home=/nonexistent\n}',
      `service auth {\n  inet_listener {\n    address = 127.0.0.1\n    port = ${port}\n  }\n}`,
    ].join('\n') + '\n',
  );
  const dovecot = spawn(DOVECOT, ['-F', '-c', join(home, 'dovecot.conf')], { stdio: 'ignore' });
  await listening(port);
  return dovecot;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) =>
    connect(port, '127.0.0.1')
      .once('connect', function (this: Socket) {
        this.destroy();
        resolve(true);
      })
      .once('error', () => resolve(false)),
  );
async function listening(port: number) {
  for (let i = 0; i < 50 && !(await accepts(port)); i++) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** A CA, and a certificate it signs for 127.0.0.1 and the relay's name. */
function privateCa(dir: string) {
  const run = (...args: string[]) => execFileSync(OPENSSL, args, { stdio: 'ignore' });
  run('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=Portico test CA', '-keyout', join(dir, 'ca.key'), '-out', join(dir, 'ca.pem'));
  run('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', `/CN=${HOST}`, '-keyout', join(dir, 'relay.key'), '-out', join(dir, 'relay.csr'));
  return writeFile(join(dir, 'san.ext'), `subjectAltName=IP:127.0.0.1,DNS:${HOST}\n`).then(() =>
    run(
      'x509',
      '-req',
      '-in',
      join(dir, 'relay.csr'),
      '-CA',
      join(dir, 'ca.pem'),
      '-CAkey',
      join(dir, 'ca.key'),
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      join(dir, 'san.ext'),
      '-out',
      join(dir, 'relay.pem'),
    ),
  );
}

/** Debian's master.cf with every service out of chroot, and smtpd on `port` instead of 25. */
async function masterCf(port: number): Promise<string> {
  const lines = (await readFile('/etc/postfix/master.cf', 'utf8')).split('\n');
  return lines
    .map((line) => {
      const fields = line.split(/\s+/);
      if (line.startsWith('#') || line.startsWith(' ') || fields.length < 8) return line;
      if (fields[0] === 'smtp' && fields[1] === 'inet') fields[0] = `127.0.0.1:${port}`;
      fields[4] = 'n';
      return fields.join(' ');
    })
    .join('\n');
}

describe.skipIf(missing.length > 0 || !root)('Portico through Postfix with STARTTLS, a private CA and SMTP AUTH', () => {
  let dir: string;
  let sink: TestSmtpServer;
  let master: ChildProcess;
  let dovecot: ChildProcess;
  let relayPort: number;
  let node: ServeProcess | undefined;
  const postfixLog = () => (existsSync(join(dir, 'maillog')) ? readFileSync(join(dir, 'maillog'), 'utf8') : '');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-postfix-'));
    await chmod(dir, 0o755);
    sink = await startSmtpServer();
    relayPort = await freePort();
    const authPort = await freePort();
    dovecot = await startDovecot(dir, authPort);
    await privateCa(dir);
    await chown(join(dir, 'relay.key'), 0, 0);
    const config = join(dir, 'etc');
    const queue = join(dir, 'queue');
    const data = join(dir, 'data');
    for (const folder of [config, queue, data]) await mkdir(folder, { recursive: true });
    const postfix = execFileSync('id', ['-u', 'postfix']).toString().trim();
    const group = execFileSync('id', ['-g', 'postfix']).toString().trim();
    await chown(data, Number(postfix), Number(group));
    const sinkPort = new URL(sink.url).port;
    await writeFile(
      join(config, 'main.cf'),
      [
        'compatibility_level = 3.6',
        `queue_directory = ${queue}`,
        `data_directory = ${data}`,
        'mail_owner = postfix',
        `myhostname = ${HOST}`,
        'inet_interfaces = 127.0.0.1',
        'inet_protocols = ipv4',
        'mydestination =',
        'mynetworks = 127.0.0.0/8',
        `relayhost = [127.0.0.1]:${sinkPort}`,
        `smtpd_tls_cert_file = ${join(dir, 'relay.pem')}`,
        `smtpd_tls_key_file = ${join(dir, 'relay.key')}`,
        'smtpd_tls_security_level = may',
        'smtpd_sasl_auth_enable = yes',
        'smtpd_sasl_type = dovecot',
        `smtpd_sasl_path = inet:127.0.0.1:${authPort}`,
        // AUTH is offered only inside TLS, and only an authenticated, encrypted session may relay.
        'smtpd_tls_auth_only = yes',
        'smtpd_relay_restrictions = reject_plaintext_session, permit_sasl_authenticated, reject',
        'smtp_tls_security_level = none',
        // Postfix writes its log only under /var or to stdout: the master's, kept for a failing test's message.
        'maillog_file = /dev/stdout',
        'alias_maps =',
        'alias_database =',
      ].join('\n') + '\n',
    );
    await writeFile(join(config, 'master.cf'), await masterCf(relayPort));
    execFileSync('/usr/sbin/postfix', ['-c', config, 'set-permissions'], { stdio: 'pipe' });
    // A file, not a pipe: Postfix's log daemon reopens /dev/stdout, which a socket (what spawn's pipes are) refuses.
    const log = openSync(join(dir, 'maillog'), 'w');
    master = spawn(MASTER, ['-c', config, '-d'], { stdio: ['ignore', log, log], env: { ...process.env, MAIL_CONFIG: config } });
    closeSync(log);
    // Postfix listens once its master has started smtpd's socket.
    await listening(relayPort);
  }, 60_000);

  afterAll(async () => {
    node?.child.kill('SIGTERM');
    await node?.exited;
    master?.kill('SIGTERM');
    dovecot?.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await sink?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('upgrades with STARTTLS, trusts the private CA under SMTP_TLS_SERVERNAME, signs in, and Postfix relays the inquiry on intact', async () => {
    // No SMTP_REQUIRE_TLS: credentials turn it on, and Postfix offers AUTH only after STARTTLS.
    node = await startServe({
      DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`,
      SMTP_URL: smtpUrl(relayPort),
      SMTP_TLS_CA_FILE: join(dir, 'ca.pem'),
      SMTP_TLS_SERVERNAME: HOST,
      SMTP_EHLO_NAME: 'portico.example.com',
      MAIL_FROM: 'web@portico.example',
      MAIL_TO: 'team@portico.example',
      RATE_LIMITS: 'off',
    });
    const response = await fetch(`${node.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(inquiry({ name: 'Ana García', locale: 'gl' })) });
    expect(response.status, `${node.output()}\n${postfixLog()}`).toBe(200);
    await expect.poll(() => sink.accepted.length, { timeout: 30_000 }).toBe(1);
    const relayed = sink.accepted[0]!;
    expect(relayed.subject).toBe('Nova consulta de Ana García [gl]');
    expect(relayed.replyTo?.value).toEqual([{ name: 'Ana García', address: 'ana@example.com' }]);
    // Postfix's own Received line: encrypted and authenticated (ESMTPSA, RFC 3848), from the EHLO name Portico gave.
    const received = String((await simpleParser(Buffer.from(sink.raw[0]!))).headers.get('received') ?? '');
    expect(received).toMatch(/from portico\.example\.com .*with ESMTPSA/s);
    expect(postfixLog()).toMatch(new RegExp(`sasl_method=PLAIN, sasl_username=${USER.replace('.', '\\.')}`));
  });

  it('signs in before it sends, in `portico check`, and names a refused password without printing it', async () => {
    const settings = { DATABASE_URL: `sqlite:${join(dir, 'check.sqlite')}`, SMTP_TLS_CA_FILE: join(dir, 'ca.pem'), SMTP_TLS_SERVERNAME: HOST, MAIL_FROM: USER, MAIL_TO: 'team@portico.example' };
    expect((await runCli(['migrate'], { ...settings, SMTP_URL: smtpUrl(relayPort) })).code).toBe(0);
    const good = await runCli(['check'], { ...settings, SMTP_URL: smtpUrl(relayPort) });
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/^mail +SMTP server 127\.0\.0\.1:\d+ answers and signs in web@portico\.example; to /m);
    const bad = await runCli(['check'], { ...settings, SMTP_URL: smtpUrl(relayPort, 'wrong/password') });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^portico: mail: SMTP server 127\.0\.0\.1:\d+ not usable: EAUTH .*535/);
    expect(bad.stdout + bad.stderr).not.toContain('wrong');
  });

  it('sends nothing, and answers 502, when the relay refuses the password', async () => {
    const refused = await startServe({
      DATABASE_URL: `sqlite:${join(dir, 'refused.sqlite')}`,
      SMTP_URL: smtpUrl(relayPort, 'wrong/password'),
      SMTP_TLS_CA_FILE: join(dir, 'ca.pem'),
      SMTP_TLS_SERVERNAME: HOST,
      MAIL_FROM: USER,
      MAIL_TO: 'team@portico.example',
      RATE_LIMITS: 'off',
    });
    try {
      const response = await fetch(`${refused.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(inquiry()) });
      expect(response.status).toBe(502);
      expect(postfixLog()).toMatch(/SASL PLAIN authentication failed/);
      expect(sink.accepted).toHaveLength(1);
    } finally {
      refused.child.kill('SIGTERM');
      await refused.exited;
    }
  });

  it("sends nothing, and answers 502, when it cannot trust the relay's certificate", async () => {
    const untrusting = await startServe({
      DATABASE_URL: `sqlite:${join(dir, 'untrusting.sqlite')}`,
      SMTP_URL: `smtp://127.0.0.1:${relayPort}`,
      SMTP_REQUIRE_TLS: 'true',
      MAIL_FROM: 'web@portico.example',
      MAIL_TO: 'team@portico.example',
      RATE_LIMITS: 'off',
    });
    try {
      const response = await fetch(`${untrusting.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(inquiry()) });
      expect(response.status).toBe(502);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(sink.accepted).toHaveLength(1);
    } finally {
      untrusting.child.kill('SIGTERM');
      await untrusting.exited;
    }
  });
});
