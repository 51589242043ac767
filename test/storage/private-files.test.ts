// Personal data is the owner's alone (D17): the SQLite database, its WAL and SHM files and the outbox's
// messages are created 0600 in 0700 folders whatever the umask lets through, and `portico check` warns,
// naming the fix, when existing ones are wider.
import { chmod, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inquiry, startApp, type TestApp } from '../support/app.js';
import { runCli, workspace, type Workspace } from '../cli/cli-harness.js';

const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

describe('files of personal data', () => {
  let ws: Workspace;
  let api: TestApp;
  beforeAll(async () => {
    ws = await workspace();
    // A fresh data folder below the workspace, as `npm start` makes ./data on a first run.
    api = await startApp({ DATABASE_URL: `sqlite:${join(ws.dir, 'data', 'portico.sqlite')}`, RATE_LIMITS: 'off' }, { dir: ws.dir, outboxDir: join(ws.dir, 'data', 'outbox') });
    expect((await api.post('/api/contact', inquiry())).status).toBe(200);
  });
  afterAll(async () => {
    await api.close();
    await ws.remove();
  });

  it('are created 0600 in 0700 folders, under the usual umask 022', async () => {
    expect(process.umask() & 0o077).not.toBe(0o077);
    const data = join(ws.dir, 'data');
    expect(await mode(data)).toBe('700');
    for (const file of ['portico.sqlite', 'portico.sqlite-wal', 'portico.sqlite-shm']) expect([file, await mode(join(data, file))]).toEqual([file, '600']);
    expect(await mode(join(data, 'outbox'))).toBe('700');
    const [day] = await readdir(join(data, 'outbox'));
    expect(day).toBe(new Date().toISOString().slice(0, 10));
    expect(await mode(join(data, 'outbox', day!))).toBe('700');
    const [message] = await readdir(join(data, 'outbox', day!));
    expect(await mode(join(data, 'outbox', day!, message!))).toBe('600');
  });

  it('an outbox with wider day folders or messages is named by portico check, with one chmod for them all', async () => {
    const cwd = join(ws.dir, 'elsewhere');
    const day = join(cwd, 'data', 'outbox', '2026-01-02');
    await mkdir(day, { recursive: true, mode: 0o700 });
    await chmod(day, 0o755);
    for (const name of ['a.eml', 'b.eml']) {
      await writeFile(join(day, name), 'Subject: x\r\n\r\n');
      await chmod(join(day, name), 0o644);
    }
    await writeFile(join(cwd, 'data', 'outbox', 'flat.eml'), 'Subject: x\r\n\r\n', { mode: 0o600 });
    expect((await runCli(['migrate'], ws.env, cwd)).code).toBe(0);
    const { code, stdout } = await runCli(['check'], ws.env, cwd);
    expect(code).toBe(0);
    expect(stdout).toContain(`personal data readable by others: 1 day folder and 2 messages in ${join('data', 'outbox')} open to others: chmod -R go= ${join('data', 'outbox')}`);
  });

  it('wider ones are named by portico check, with the chmod that fixes each; it still says ok', async () => {
    const dir = join(ws.dir, 'legacy');
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    await writeFile(join(dir, 'p.sqlite'), '', { mode: 0o644 });
    await chmod(join(dir, 'p.sqlite'), 0o644);
    expect((await ws.cli('migrate')).code).toBe(0);
    const { code, stdout } = await ws.cli('check');
    expect(code).toBe(0);
    // The workspace's own database, made by the commands, is not named (the outbox of the working directory may be).
    expect(stdout).not.toContain(ws.dir);
    const legacy = await workspace({ DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}` });
    try {
      // Migrated where it lies: the modes it was given stay.
      expect((await legacy.cli('migrate')).code).toBe(0);
      const answer = await legacy.cli('check');
      expect(answer.code).toBe(0);
      expect(answer.stdout).toContain(`permissions   warning: personal data readable by others: ${dir} is 0755: chmod 700 ${dir}`);
      expect(answer.stdout).toContain(`${join(dir, 'p.sqlite')} is 0644: chmod 600 ${join(dir, 'p.sqlite')}`);
      expect(answer.stdout.trimEnd().endsWith('ok')).toBe(true);
    } finally {
      await legacy.remove();
    }
  });
});
