// `portico check` validates the configuration, reaches the database and the mail server, and says ok or why not.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
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

  it('prints ok and exits 0 when SMTP_URL points at a mail server that answers', async () => {
    const { code, stdout } = await runCli(['check'], { ...space.env, SMTP_URL: smtp.url, MAIL_TO: 'Sales <sales@portico.example>' });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^mail +SMTP server 127\.0\.0\.1:\d+ answers; to sales@portico\.example$/m);
    expect(lines(stdout).at(-1)).toBe('ok');
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
});
