// The release before this one (src/adapters/sql/previous-release.ts), checked out in a git worktree and
// built as an operator installs it (`npm ci`, which builds dist/), once per commit on this machine.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PREVIOUS_RELEASE } from '../../src/adapters/sql/previous-release.js';
import { ROOT } from '../support/serve-process.js';

const run = promisify(execFile);

export interface Release {
  commit: string;
  /** Its checkout, where `node dist/cli.js` runs it. */
  dir: string;
  /** The command that runs its `portico`, with arguments after it. */
  cli: [string, string];
}

/** The release before, built in node_modules/.cache (a few minutes the first time: npm ci builds better-sqlite3 and dist/). */
export async function previousRelease(): Promise<Release> {
  const { commit } = PREVIOUS_RELEASE;
  // One build per Node ABI: its better-sqlite3 is compiled for the Node that built it.
  const dir = join(ROOT, 'node_modules', '.cache', 'portico-previous-release', `${commit.slice(0, 12)}-abi${process.versions.modules}`);
  const cli = join(dir, 'dist', 'cli.js');
  if (!existsSync(cli)) {
    await rm(dir, { recursive: true, force: true });
    await run('git', ['-C', ROOT, 'worktree', 'prune']);
    await run('git', ['-C', ROOT, 'worktree', 'add', '--force', '--detach', dir, commit]);
    await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, maxBuffer: 64 * 1024 * 1024, timeout: 15 * 60_000 });
  }
  return { commit, dir, cli: [process.execPath, cli] };
}
