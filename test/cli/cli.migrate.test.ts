// `portico migrate` creates the SQLite database, says it is up to date, and is safe to run again.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, workspace, type Workspace } from './cli-harness.js';

describe('portico migrate', () => {
  let space: Workspace;
  beforeEach(async () => {
    space = await workspace();
  });
  afterEach(() => space.remove());

  it('creates the database file and prints that it is up to date', async () => {
    expect(existsSync(join(space.dir, 'p.sqlite'))).toBe(false);
    const { code, stdout, stderr } = await space.cli('migrate');
    expect(code).toBe(0);
    expect(stdout).toBe('database is up to date\n');
    expect(stderr).toBe('');
    expect(existsSync(join(space.dir, 'p.sqlite'))).toBe(true);
  });

  it('is idempotent: a second run succeeds with the same output and the database still answers', async () => {
    const first = await space.cli('migrate');
    const second = await space.cli('migrate');
    expect(second).toEqual(first);
    expect(second.code).toBe(0);
    const list = await space.cli('inquiries', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toBe('no inquiries\n');
  });

  it('creates the directories leading to the database file', async () => {
    const path = join(space.dir, 'nested', 'deeper', 'p.sqlite');
    const { code, stdout } = await runCli(['migrate'], { ...space.env, DATABASE_URL: `sqlite:${path}` });
    expect(code).toBe(0);
    expect(stdout).toBe('database is up to date\n');
    expect(existsSync(path)).toBe(true);
  });
});
