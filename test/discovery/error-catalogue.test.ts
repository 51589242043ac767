// Every error code the API can answer with is documented for people (docs/errors.md); openapi.test.ts checks machines.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/errors.js';

describe('the error catalogue', () => {
  it('lists every code with its status in docs/errors.md, and no code the API cannot answer', async () => {
    const doc = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const listed = [...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]);
    expect(Object.fromEntries(listed)).toEqual(Object.fromEntries(Object.entries(ERROR_CATALOGUE).map(([code, { status }]) => [code, status])));
  });
});
