// What readers paste works: every `sh` block of README, CONTRIBUTING and docs/ runs here against a real
// server, or says on the line before it why it cannot (`<!-- not run: reason -->`: Docker, systemd, a real relay).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { makeCertificate } from '../support/smtp-tls.js';
import { freePort, inquiry, startApp, type TestApp } from '../support/app.js';
import { documents, ROOT, runnable, shellBlocks, type ShellBlock } from './shell-blocks.js';

const run = promisify(execFile);
/** Documents whose blocks another test runs. */
const RUN_ELSEWHERE: Record<string, string> = { 'docs/oauth.md': 'test/docs/oauth-doc.test.ts' };
/** Documents whose blocks this file runs (each `describe` below). */
const RUN_HERE = ['README.md', 'docs/contact.md', 'docs/mcp.md', 'docs/deploy.md'];

/** Runs blocks in order in one shell, as a reader would, with the server's address for `localhost:3000`. */
async function runInOrder(blocks: ShellBlock[], env: Record<string, string>, cwd: string): Promise<string[]> {
  const script = ['set -euo pipefail', ...blocks.map((block) => block.code.replaceAll('http://localhost:3000', env.BASE!))].join('\n');
  const { stdout } = await run('bash', ['-c', script], { cwd, env: { PATH: `${ROOT}node_modules/.bin:${process.env.PATH}`, ...env }, timeout: 30_000 });
  return stdout.trim().split('\n');
}

describe('the shell blocks of the docs', () => {
  it('are each run by a test, or say why they cannot be', () => {
    for (const file of documents()) {
      const blocks = shellBlocks(file);
      for (const block of blocks) if (block.notRun !== undefined) expect(block.notRun.trim(), `${file}:${block.line}`).not.toBe('');
      if (runnable(file).length > 0) expect([...RUN_HERE, ...Object.keys(RUN_ELSEWHERE)], `${file} has blocks no test runs`).toContain(file);
    }
  });

  describe('run against a server', () => {
    let api: TestApp;
    let work: string;
    beforeAll(async () => {
      api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
      work = await mkdtemp(join(tmpdir(), 'portico-docs-'));
    });
    afterAll(async () => {
      await api.close();
      await rm(work, { recursive: true, force: true });
    });

    it('README: the first inquiry is answered 200 {ok:true} and stored', async () => {
      const output = await runInOrder(runnable('README.md'), { BASE: api.url }, work);
      expect(output[0]).toMatch(/^HTTP\/1\.1 200/);
      expect(output.at(-1)).toBe('{"ok":true}');
      const [stored] = await api.deps.inquiries.list({ limit: 1 });
      expect(stored).toMatchObject({ name: 'Ana', email: 'ana@example.com', status: 'sent' });
    });

    it('docs/contact.md: an inquiry, a refusal naming every problem, and a key that sends once', async () => {
      const before = (await api.deps.inquiries.list({ limit: 100 })).length;
      const output = await runInOrder(runnable('docs/contact.md'), { BASE: api.url }, work);
      expect(output[0]).toBe('{"ok":true}');
      expect(output[1]).toContain('email');
      expect(output[1]).toContain('message');
      expect(output[1]).toContain('privacy');
      expect(output.slice(2)).toEqual(['200', '200']);
      // The first block's inquiry and one of the two keyed attempts.
      expect((await api.deps.inquiries.list({ limit: 100 })).length).toBe(before + 2);
    });

    it('docs/mcp.md: the tool is listed, and an inquiry through it is delivered', async () => {
      const output = await runInOrder(runnable('docs/mcp.md'), { BASE: api.url }, work);
      expect(output).toEqual(['contact_service', '["error","fields","ok","retryAfterSeconds"]', '{"ok":true}']);
      const [stored] = await api.deps.inquiries.list({ limit: 1 });
      expect(stored).toMatchObject({ channel: 'mcp', email: 'ana@example.com', status: 'sent' });
    });
  });

  describe('docs/deploy.md', () => {
    let etc: string;
    let api: TestApp;
    beforeAll(async () => {
      // The page's files live in /etc/portico, its node's data in ./data; here, in a folder of the test's own.
      etc = await mkdtemp(join(tmpdir(), 'portico-etc-'));
      await writeFile(join(etc, 'relay-ca.pem'), (await makeCertificate(etc, 'relay.example.com')).cert);
      api = await startApp({ RATE_LIMITS: 'off' }, { dir: etc });
      expect((await api.post('/api/contact', inquiry({ email: 'ana@example.com' }))).status).toBe(200);
    });
    afterAll(async () => {
      await api.close();
      await rm(etc, { recursive: true, force: true });
    });

    /** A production node's settings, which each block's own assignments then change. */
    const production = {
      APP_ENV: 'production',
      PUBLIC_URL: 'https://api.example.com',
      MAIL_FROM: 'Portico <portico@example.com>',
      MAIL_TO: 'team@example.com',
      SMTP_URL: 'smtp://relay.example.com:587',
    };

    it('sets only settings the configuration accepts, and its commands do what it says', async () => {
      const [ana] = await api.deps.inquiries.list({ limit: 1 });
      const blocks = runnable('docs/deploy.md');
      expect(blocks.length).toBeGreaterThanOrEqual(6);
      const outputs: string[] = [];
      for (const block of blocks) {
        const code = block.code.replaceAll('/etc/portico/', `${etc}/`);
        const assigned = [...code.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]!);
        // `set -a` exports what the block assigns, as `.env` or an EnvironmentFile would give it to Portico.
        const { stdout } = await run('bash', ['-c', `set -euo pipefail; set -a\n${code}\necho; echo '--env--'; env -0`], {
          cwd: etc,
          env: { PATH: `${ROOT}node_modules/.bin:${process.env.PATH}`, DATABASE_URL: `sqlite:${join(etc, 'portico.sqlite')}` },
          timeout: 30_000,
        });
        const [output, environment] = stdout.split('\n--env--\n') as [string, string];
        outputs.push(output);
        const env = Object.fromEntries(
          environment
            .split('\0')
            .filter(Boolean)
            .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
        );
        const settings = Object.fromEntries(assigned.map((name) => [name, env[name] as string]));
        expect(() => loadConfig({ ...production, ...settings }), `docs/deploy.md:${block.line}`).not.toThrow();
      }
      // The erasure: listed by the dry run, then erased.
      expect(outputs.join('\n').split(ana!.id).length - 1).toBeGreaterThanOrEqual(2);
      expect(await api.deps.inquiries.list({ limit: 10 })).toEqual([]);
    });
  });
});
