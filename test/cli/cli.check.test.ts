// `portico check` validates the configuration, reaches the database and the mail server, and says ok or why not.
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, postgresAvailable } from '../support/postgres.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { makeCertificate, OPENSSL, startRealSmtpServer } from '../support/smtp-tls.js';
import { lines, runCli, workspace, type Workspace } from './cli-harness.js';

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('portico check', () => {
  let space: Workspace;
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    space = await workspace();
    expect((await space.cli('migrate')).code).toBe(0);
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp.close();
    await space.remove();
  });

  it('prints ok and exits 0 in outbox mode (no SMTP_URL)', async () => {
    const { code, stdout, stderr } = await space.cli('check');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^mail +outbox folder/m);
    expect(stdout).toMatch(/^database +sqlite/m);
    expect(lines(stdout).at(-1)).toBe('ok');
  });

  it('prints the address clients must use, and that the other loopback names answer but do not match the metadata', async () => {
    const { stdout } = await runCli(['check'], { ...space.env, PUBLIC_URL: 'http://localhost:8080' });
    expect(stdout).toMatch(
      /^clients +connect at http:\/\/localhost:8080 \(MCP: http:\/\/localhost:8080\/mcp\), the address the OAuth metadata names; 127\.0\.0\.1:8080 and \[::1\]:8080 answer too, but OAuth clients refuse metadata for another address$/m,
    );
    const { stdout: public_ } = await runCli(['check'], { ...space.env, PUBLIC_URL: 'https://api.portico.example', TRUST_PROXY: 'loopback' });
    expect(public_).toMatch(/^clients +connect at https:\/\/api\.portico\.example \(MCP: https:\/\/api\.portico\.example\/mcp\), the address the OAuth metadata names$/m);
  });

  it('prints ok and exits 0 when SMTP_URL points at a mail server that answers', async () => {
    const { code, stdout } = await runCli(['check'], { ...space.env, SMTP_URL: smtp.url, MAIL_TO: 'Sales <sales@portico.example>' });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^mail +SMTP server 127\.0\.0\.1:\d+ answers; to sales@portico\.example$/m);
    expect(lines(stdout).at(-1)).toBe('ok');
  });

  it('names the mailbox of each topic that has one of its own beside MAIL_TO', async () => {
    const env = { ...space.env, SMTP_URL: smtp.url, MAIL_TO: 'team@portico.example', MAIL_TO_DEMO: 'Demos <demos@portico.example>', MAIL_TO_SUPPORT: 'help@portico.example' };
    const { code, stdout } = await runCli(['check'], env);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^mail +SMTP server 127\.0\.0\.1:\d+ answers; to team@portico\.example \(demo: demos@portico\.example, support: help@portico\.example\)$/m);
  });

  it('exits 1 with one clear line when SMTP_URL points at a closed port, never printing the password', async () => {
    const port = await closedPort();
    const { code, stdout, stderr } = await runCli(['check'], { ...space.env, SMTP_URL: `smtp://mailer:hunter2@127.0.0.1:${port}` });
    expect(code).toBe(1);
    expect(lines(stdout)).not.toContain('ok');
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toMatch(/^portico: mail: SMTP server 127\.0\.0\.1:\d+ not usable: .*ECONNREFUSED/);
    expect(stdout + stderr).not.toContain('hunter2');
  });

  it.skipIf(!existsSync(OPENSSL))('signs in to the relay as serve would, and exits 1 naming the refusal when the password is wrong', async () => {
    const certificate = await makeCertificate(space.dir, '127.0.0.1');
    const relay = await startRealSmtpServer({
      key: certificate.key,
      cert: certificate.cert,
      authOptional: false,
      onAuth: ({ username, password }, _session, callback) =>
        username === 'mailer' && password === 'right' ? callback(null, { user: username }) : callback(Object.assign(new Error('5.7.8 bad credentials'), { responseCode: 535 })),
    });
    try {
      const env = { ...space.env, SMTP_TLS_CA_FILE: certificate.certPath };
      const signedIn = await runCli(['check'], { ...env, SMTP_URL: relay.url.replace('smtp://', 'smtp://mailer:right@') });
      expect(signedIn.code, signedIn.stderr).toBe(0);
      expect(signedIn.stdout).toMatch(/^mail +SMTP server 127\.0\.0\.1:\d+ answers and signs in mailer; to /m);
      const refused = await runCli(['check'], { ...env, SMTP_URL: relay.url.replace('smtp://', 'smtp://mailer:wrong@') });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^portico: mail: SMTP server 127\.0\.0\.1:\d+ not usable: EAUTH .*535/);
      expect(refused.stdout + refused.stderr).not.toContain('wrong');
    } finally {
      await relay.close();
    }
  });
});

const withPostgres = await postgresAvailable('test/cli/cli.check.test.ts');

describe('portico check before portico migrate', () => {
  it('in an empty folder, exits 1 naming portico migrate and makes nothing: no database, no data folder', async () => {
    const space = await workspace();
    try {
      const folder = join(space.dir, 'fresh');
      await mkdir(folder);
      const { code, stdout, stderr } = await runCli(['check'], {}, folder);
      expect(code).toBe(1);
      expect(lines(stdout)).not.toContain('ok');
      expect(lines(stderr)).toEqual(['portico: database: sqlite:./data/portico.sqlite does not exist: not migrated; run `portico migrate` (it makes and migrates it)']);
      expect(await readdir(folder)).toEqual([]);
    } finally {
      await space.remove();
    }
  });

  it.skipIf(!withPostgres)('on an empty PostgreSQL database, exits 1 naming portico migrate and creates no table', async () => {
    const database = await createDatabase();
    try {
      const { code, stderr } = await runCli(['check'], { DATABASE_URL: database.url });
      expect(code).toBe(1);
      expect(stderr).toMatch(/^portico: database: the PostgreSQL database is not migrated \(\d+ pending: 0001_[\w, ]+\); run `portico migrate`\n$/);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query("select count(*)::int as n from information_schema.tables where table_schema = 'public'");
      await client.end();
      expect(rows[0].n).toBe(0);
    } finally {
      await database.drop();
    }
  });
});
