// A start that cannot succeed ends at once with exit code 1 and one line naming the resource and the fix.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/app.js';
import { startServe } from '../support/serve-process.js';
import { lines, runCli, workspace, type Workspace } from './cli-harness.js';

describe('start-up failures', () => {
  let space: Workspace;
  let occupant: Server;
  let port: number;
  beforeAll(async () => {
    space = await workspace();
    occupant = createServer();
    await new Promise<void>((resolve) => occupant.listen(0, '127.0.0.1', resolve));
    port = (occupant.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => occupant.close(() => resolve()));
    await space.remove();
  });

  const oneLine = (result: { code: number | null; stderr: string }) => {
    expect(result.code).toBe(1);
    expect(lines(result.stderr), result.stderr).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    return result.stderr.trim();
  };

  it('names the port another process holds, and how to choose another', async () => {
    const started = Date.now();
    const line = oneLine(await runCli(['serve'], { ...space.env, PORT: String(port) }));
    expect(line).toBe(`portico: port ${port} on 127.0.0.1 is already in use: stop what listens there, or set PORT (or HOST) to another`);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('names METRICS_PORT when the metrics port is the one taken, and leaves nothing listening', async () => {
    const publicPort = await freePort();
    const line = oneLine(await runCli(['serve'], { ...space.env, PORT: String(publicPort), METRICS_PORT: String(port) }));
    expect(line).toBe(`portico: port ${port} on 127.0.0.1 is already in use: stop what listens there, or set METRICS_PORT (or METRICS_HOST) to another`);
    await expect(fetch(`http://127.0.0.1:${publicPort}/healthz`)).rejects.toThrow();
  });

  it.each([
    ['a file stands where a folder should', 'sqlite:/etc/passwd/x.sqlite', 'ENOTDIR at /etc/passwd'],
    ['the folder cannot be made (below /proc, where mkdir -p would spin for ever)', 'sqlite:/proc/nope/x.sqlite', 'ENOENT at /proc/nope'],
  ])('names DATABASE_URL when %s', async (_case, url, reason) => {
    const started = Date.now();
    const line = oneLine(await runCli(['migrate'], { DATABASE_URL: url }));
    expect(line).toBe(`portico: invalid configuration: DATABASE_URL names ${url.slice('sqlite:'.length)}, which cannot be created (${reason}): choose a path in a folder Portico may write`);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('names each retention longer than ten years and the bound, in one start, before listening', async () => {
    const publicPort = await freePort();
    const { code, stderr } = await runCli(['serve'], { ...space.env, PORT: String(publicPort), INQUIRY_RETENTION: '99999999999d', SPAM_RETENTION: '3651d' });
    expect(code).toBe(1);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(lines(stderr)).toEqual([
      'portico: invalid configuration: INQUIRY_RETENTION must be at most 3650d (ten years), or off (got "99999999999d")',
      'portico: invalid configuration: SPAM_RETENTION must be at most 3650d (ten years), or off (got "3651d")',
    ]);
    await expect(fetch(`http://127.0.0.1:${publicPort}/healthz`)).rejects.toThrow();
  });

  it('names an unknown reason in SPAM_HOLD, a count of links that is no number and an empty blocked term, in one start, before listening', async () => {
    const publicPort = await freePort();
    const env = { ...space.env, PORT: String(publicPort), SPAM_HOLD: 'links,spam', SPAM_MAX_LINKS: 'many', SPAM_BLOCKED_TERMS: 'casino, ,bonus' };
    const { code, stderr } = await runCli(['serve'], env);
    expect(code).toBe(1);
    expect(lines(stderr)).toEqual([
      'portico: invalid configuration: SPAM_HOLD must be a comma-separated list of honeypot, disposable-address, links, blocked-term, akismet, or none (got "spam")',
      'portico: invalid configuration: SPAM_MAX_LINKS must be an integer from 0 to 1000 (got "many")',
      'portico: invalid configuration: SPAM_BLOCKED_TERMS must be a comma-separated list of terms, none of them empty (got "casino, ,bonus")',
    ]);
    await expect(fetch(`http://127.0.0.1:${publicPort}/healthz`)).rejects.toThrow();
  });

  it('refuses a blocked term of only a zero-width space, which would mark every inquiry, before listening', async () => {
    const publicPort = await freePort();
    const { code, stderr } = await runCli(['serve'], { ...space.env, PORT: String(publicPort), SPAM_BLOCKED_TERMS: 'casino,\u200b' });
    expect(code).toBe(1);
    expect(lines(stderr)).toEqual([
      'portico: invalid configuration: SPAM_BLOCKED_TERMS must hold terms that show something: term 2 is only marks or characters that show nothing, and would match every inquiry (got "U+200B")',
    ]);
    await expect(fetch(`http://127.0.0.1:${publicPort}/healthz`)).rejects.toThrow();
  });

  it('names the PostgreSQL server that does not answer by host and port', async () => {
    const closed = await freePort();
    const line = oneLine(await runCli(['migrate'], { DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/nothing` }));
    expect(line).toBe(`portico: the PostgreSQL server at 127.0.0.1:${closed} does not answer (ECONNREFUSED): start it, or correct DATABASE_URL`);
  });
});

describe('start-up warnings', () => {
  it('says that MAIL_ACKNOWLEDGE and the DKIM settings do nothing when the only channel is a webhook', async () => {
    const space = await workspace();
    const keyFile = join(space.dir, 'dkim.pem');
    await writeFile(keyFile, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const node = await startServe(
      {
        ...space.env,
        WEBHOOK_URL: 'http://127.0.0.1:9/inquiries',
        WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
        MAIL_ACKNOWLEDGE: 'on',
        DKIM_DOMAIN: 'portico.example',
        DKIM_SELECTOR: 'portico2026',
        DKIM_PRIVATE_KEY_FILE: keyFile,
      },
      { cwd: space.dir },
    );
    try {
      await expect.poll(() => node.output(), { timeout: 3_000 }).toContain('MAIL_ACKNOWLEDGE=on, but no mail channel is set (only WEBHOOK_URL)');
      expect(node.output()).toContain('DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE are set, but no mail channel is');
    } finally {
      node.child.kill('SIGTERM');
      await node.exited;
      await space.remove();
    }
  });
});
