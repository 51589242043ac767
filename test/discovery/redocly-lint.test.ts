// The OpenAPI document passes `redocly lint` (recommended rules) with no errors, as Portico serves it.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';
import { testTool } from '../support/tools.js';

const run = promisify(execFile);
// Redocly's linter is no part of an install of Portico (tools/openapi-lint).
const REDOCLY = testTool('openapi-lint', 'node_modules/.bin/redocly');

describe.skipIf(!REDOCLY)('redocly lint of the OpenAPI document', () => {
  let api: TestApp;
  let dir: string;
  beforeAll(async () => {
    api = await startApp({ PUBLIC_URL: 'https://api.portico.example', SANDBOX_URL: 'https://sandbox.portico.example' });
    dir = await mkdtemp(join(tmpdir(), 'portico-lint-'));
  });
  afterAll(async () => {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('finds no errors', async () => {
    const file = join(dir, 'openapi.json');
    await writeFile(file, await (await fetch(`${api.url}/openapi.json`)).text());
    // lint exits 1 when it finds errors; the JSON report says which.
    const { stdout } = await run(REDOCLY!, ['lint', file, '--format', 'json'], { cwd: dir, timeout: 60_000 }).catch((error: { stdout: string }) => error);
    const report = JSON.parse(stdout) as { totals: { errors: number }; problems: { ruleId: string; message: string; severity: string }[] };
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 90_000);
});
