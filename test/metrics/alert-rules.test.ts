// The Prometheus files docs/deploy.md gives (deploy/prometheus) are valid, and the three alerts fire
// when they should and only then: promtool's rule tests (alert-rules.promtool.yaml) replay series.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PROMTOOL = '/usr/bin/promtool';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const hasPromtool = existsSync(PROMTOOL);
if (!hasPromtool) console.warn(`SKIPPED test/metrics/alert-rules.test.ts: ${PROMTOOL} is missing. Install Debian's prometheus (as .ci/run does).`);

const promtool = (...args: string[]) => spawnSync(PROMTOOL, args, { cwd: ROOT, encoding: 'utf8' });

describe.skipIf(!hasPromtool)('the Prometheus configuration and alert rules', () => {
  it('is a valid scrape configuration with valid rules', () => {
    const result = promtool('check', 'config', 'deploy/prometheus/prometheus.yaml');
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('SUCCESS: 3 rules found');
  });

  it('alerts on a channel delivering nothing for an hour, an inquiry waiting an hour, and 5% server errors', () => {
    const result = promtool('test', 'rules', 'test/metrics/alert-rules.promtool.yaml');
    expect(result.status, result.stdout + result.stderr).toBe(0);
  });
});
