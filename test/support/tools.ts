// Test tools that an install of Portico does not carry (tools/<folder>, each with its own lock file):
// a test that needs one installs it the first time it runs, as `npm run install-tools` does for CI.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** The path of `file` inside tools/`folder`, installing the folder first if needed; undefined if it cannot be installed. */
export function testTool(folder: string, file: string): string | undefined {
  const root = fileURLToPath(new URL(`../../tools/${folder}/`, import.meta.url));
  const path = join(root, file);
  if (!existsSync(path)) {
    // Test files run in parallel and `npm ci` empties node_modules first: one installs, the others wait.
    const lock = join(root, '.installing');
    for (;;) {
      try {
        mkdirSync(lock);
        break;
      } catch {
        if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 300_000) rmSync(lock, { recursive: true, force: true });
        pause(500);
      }
    }
    try {
      if (!existsSync(path)) spawnSync('npm', ['ci', '--prefix', root, '--no-audit', '--no-fund'], { stdio: 'ignore', timeout: 300_000 });
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  if (existsSync(path)) return path;
  console.warn(`\n*** SKIPPED: tools/${folder} could not be installed (run "npm run install-tools"): the tests that use ${file} did not run. ***\n`);
  return undefined;
}

/** The module at `file` inside tools/`folder` (see testTool), imported as `T`; undefined if the tool cannot be installed. */
export async function importTestTool<T>(folder: string, file: string): Promise<T | undefined> {
  const path = testTool(folder, file);
  return path === undefined ? undefined : ((await import(pathToFileURL(path).href)) as T);
}
