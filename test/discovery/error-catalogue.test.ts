// Every error code the API can answer with is documented for people (README) and machines (OpenAPI).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/errors.js';

describe('the error catalogue', () => {
  it('lists every code with its status in the README', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    for (const [code, { status }] of Object.entries(ERROR_CATALOGUE)) {
      expect(readme).toMatch(new RegExp(`\\| \`${code}\` \\| ${status} \\|`));
    }
  });
});
