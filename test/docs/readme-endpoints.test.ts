// README's "What it serves" lists every path the OpenAPI document describes, and nothing it does not.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';
import { ROOT, section } from './shell-blocks.js';

/** The paths of the table's second column: `a`, `b` in one cell, and `/x[/y\|/z]` for /x, /x/y and /x/z. */
function tablePaths(readme: string): string[] {
  const cells = section(readme, 'What it serves')
    .split('\n')
    .filter((line) => /^\| (GET|POST|OPTIONS|GET, POST) /.test(line))
    .map((line) => line.split(' | ')[1]!);
  return cells.flatMap((cell) =>
    [...cell.matchAll(/`([^`]+)`/g)].flatMap(([, path]) => {
      const optional = /^(.*)\[(.*)\]$/.exec(path!);
      if (!optional) return [path!];
      const alternatives = optional[2]!.split('\\|');
      return [optional[1]!, ...alternatives.map((tail) => `${optional[1]}${tail}`)];
    }),
  );
}

describe("README's table of what Portico serves", () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp();
  });
  afterAll(() => api.close());

  it('names every path of the OpenAPI document, and no other', async () => {
    const document = (await (await fetch(`${api.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const listed = tablePaths(await readFile(`${ROOT}README.md`, 'utf8'));
    expect(new Set(listed)).toEqual(new Set(Object.keys(document.paths)));
  });
});
