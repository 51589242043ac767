// `portico` usage, unknown commands and options, and the one-line refusal of a bad configuration.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lines, ROOT, runCli, workspace, type Workspace } from './cli-harness.js';

let space: Workspace;
beforeAll(async () => {
  space = await workspace();
});
afterAll(() => space.remove());

describe('portico usage', () => {
  it('prints the usage and exits 0 when given no arguments', async () => {
    const { code, stdout, stderr } = await space.cli();
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: portico/);
    for (const command of ['serve', 'migrate', 'check', 'openapi', 'clients', 'inquiries', 'Examples:', 'Exit codes:']) expect(stdout).toContain(command);
    expect(stderr).toBe('');
  });

  it("prints each command group's commands, and each command's options with an example", async () => {
    const group = await space.cli('inquiries', '--help');
    expect(group.code).toBe(0);
    for (const command of ['list [options]', 'resend [options] [id]', 'purge [options]', 'export [options]', 'erase [options]']) expect(group.stdout).toContain(command);
    const list = await space.cli('inquiries', 'list', '--help');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^Usage: portico inquiries list \[options\]/);
    for (const option of ['--status <status>', '--limit <n>', '--format <format>', 'Examples:', '$ portico inquiries list']) expect(list.stdout).toContain(option);
    expect((await space.cli('inquiries', 'help', 'list')).stdout).toBe(list.stdout);
  });

  it('prints its version with --version and -v', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) expect(await space.cli(flag)).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('suggests the command or option meant by a mistyped one, and exits 1', async () => {
    const command = await space.cli('inquiries', 'lst');
    expect(command.code).toBe(1);
    expect(lines(command.stderr)).toEqual(["portico: unknown command 'lst'", '(Did you mean list?)']);
    const option = await space.cli('inquiries', 'list', '--limt', '3');
    expect(option.code).toBe(1);
    expect(lines(option.stderr)).toEqual(["portico: unknown option '--limt'", '(Did you mean --limit?)']);
  });

  it('prints the same usage and exits 0 for --help and -h', async () => {
    const bare = await space.cli();
    for (const flag of ['--help', '-h']) {
      const { code, stdout } = await space.cli(flag);
      expect(code).toBe(0);
      expect(stdout).toBe(bare.stdout);
    }
  });

  it('runs as `npx portico` from the project folder, from the bin npm install links (tools/link-bin.mjs), without fetching anything', { timeout: 60_000 }, async () => {
    // --no-install: npx may not fetch the project into its cache (or anything else); it fails instead.
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn('npx', ['--no-install', 'portico', '--help'], { cwd: ROOT, env: { PATH: process.env.PATH } });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject).on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(code, stderr).toBe(0);
    expect(stdout).toBe((await space.cli('--help')).stdout);
  });

  it('exits 1 naming an unknown command on stderr, printing nothing on stdout', async () => {
    const { code, stdout, stderr } = await space.cli('frobnicate');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(lines(stderr)[0]).toBe("portico: unknown command 'frobnicate'");
  });

  it('exits 1 for an unknown subcommand of inquiries', async () => {
    const { code, stderr } = await space.cli('inquiries', 'frobnicate');
    expect(code).toBe(1);
    expect(lines(stderr)[0]).toBe("portico: unknown command 'frobnicate'");
  });

  it('exits 1 with one line naming an unknown option', async () => {
    const { code, stderr } = await space.cli('migrate', '--frobnicate');
    expect(code).toBe(1);
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toMatch(/^portico: .*--frobnicate/);
  });
});

describe('portico with a bad configuration', () => {
  it('exits 1 with one line naming PORT when PORT is not a number', async () => {
    const { code, stdout, stderr } = await runCli(['check'], { ...space.env, PORT: 'abc' });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.endsWith('\n')).toBe(true);
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toMatch(/^portico: invalid configuration: PORT /);
  });

  it.each<[string, string, Record<string, string>]>([
    ['APP_ENV is unknown', 'APP_ENV', { APP_ENV: 'staging' }],
    ['DATABASE_URL is another engine', 'DATABASE_URL', { DATABASE_URL: 'mysql://root:hunter2@db.internal/portico' }],
    ['SMTP_URL is not smtp', 'SMTP_URL', { SMTP_URL: 'http://mailer:hunter2@mail.internal' }],
    ['production has no SMTP_URL', 'SMTP_URL', { APP_ENV: 'production', PUBLIC_URL: 'https://api.portico.example', MAIL_FROM: 'no-reply@portico.example', MAIL_TO: 'sales@portico.example' }],
    ['RATE_LIMITS names an unknown limit', 'RATE_LIMITS', { RATE_LIMITS: 'unknown=1/m' }],
  ])('exits 1 with one line naming the variable when %s, never echoing a password', async (_case, variable, env) => {
    const { code, stderr } = await runCli(['migrate'], { ...space.env, ...env });
    expect(code).toBe(1);
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr.startsWith(`portico: invalid configuration: ${variable} `)).toBe(true);
    expect(stderr).not.toContain('hunter2');
  });

  it('names every mistake in one start, one line each, with the valid choices', async () => {
    const { code, stderr } = await runCli(['check'], { ...space.env, RATE_LIMITS: 'contact=9/fortnight', SMTP_URL: 'not-a-url', LOG_LEVEL: 'loud' });
    expect(code).toBe(1);
    expect(lines(stderr)).toEqual([
      expect.stringMatching(/^portico: invalid configuration: SMTP_URL .*smtp:\/\/.*smtps:\/\//),
      expect.stringMatching(/^portico: invalid configuration: RATE_LIMITS .*\bs\b.*\bm\b.*\bh\b.*\bd\b/),
      expect.stringMatching(/^portico: invalid configuration: LOG_LEVEL /),
    ]);
  });

  it('reads .env from its working folder, the real environment winning', async () => {
    await writeFile(join(space.dir, '.env'), `DATABASE_URL=sqlite:${join(space.dir, 'from-dotenv.sqlite')}\nLOG_LEVEL=loud\n`);
    const refused = await runCli(['check'], {}, space.dir);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual(['portico: invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")']);
    const fixed = await runCli(['migrate'], { LOG_LEVEL: 'warn' }, space.dir);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(existsSync(join(space.dir, 'from-dotenv.sqlite'))).toBe(true);
    const checked = await runCli(['check'], { LOG_LEVEL: 'warn' }, space.dir);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/^database +sqlite/m);
  });

  it('refuses a bad configuration before creating the database', async () => {
    const { code } = await runCli(['migrate'], { ...space.env, LOG_LEVEL: 'loud' });
    expect(code).toBe(1);
    expect(existsSync(join(space.dir, 'p.sqlite'))).toBe(false);
  });
});
