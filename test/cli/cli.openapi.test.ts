// `portico openapi [--yaml]` prints the service's OpenAPI 3.1 document as JSON or YAML.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { workspace, type CliResult, type Workspace } from './cli-harness.js';

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
});
