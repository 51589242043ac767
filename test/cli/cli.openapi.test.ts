// `portico openapi [--yaml]` prints the service's OpenAPI 3.1 document as JSON or YAML.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLI, ROOT, workspace, type CliResult, type Workspace } from './cli-harness.js';

describe('portico openapi', () => {
  let space: Workspace;
  let json: CliResult;
  let yaml: CliResult;
  beforeAll(async () => {
    space = await workspace();
    json = await space.cli('openapi');
    yaml = await space.cli('openapi', '--yaml');
  });
  afterAll(() => space.remove());

  it('prints a JSON document of OpenAPI 3.1.0, version 1.0.0, and exits 0', () => {
    expect(json.code).toBe(0);
    expect(json.stderr).toBe('');
    const document = JSON.parse(json.stdout);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
  });

  it('documents POST /api/contact', () => {
    const document = JSON.parse(json.stdout);
    expect(Object.keys(document.paths)).toContain('/api/contact');
    expect(document.paths['/api/contact']).toHaveProperty('post');
  });

  it('prints the same document as YAML with --yaml', () => {
    expect(yaml.code).toBe(0);
    expect(yaml.stderr).toBe('');
    expect(yaml.stdout.trimStart().startsWith('{')).toBe(false);
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });

  it('leaves the configured database alone', () => {
    expect(existsSync(join(space.dir, 'p.sqlite'))).toBe(false);
  });

  it('ends quietly with status 0 when its reader closes the pipe early, as `portico openapi | head` does', async () => {
    const child = spawn(process.execPath, [CLI, 'openapi'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...space.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Like `head` that has already read its lines: nobody reads the pipe any more.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const [code] = (await once(child, 'close')) as [number | null];
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
