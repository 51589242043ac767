// The layering of src/: modules and adapters never import across the floors the other owns, and no file
// imports itself through others.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph, layeringProblems } from './imports.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** A throwaway src/ with the given files, so the check itself is seen to catch what it must. */
function withSource(files: Record<string, string>, check: (root: string) => void): void {
  const parent = mkdtempSync(join(tmpdir(), 'portico-layering-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(parent, 'src', path)), { recursive: true });
      writeFileSync(join(parent, 'src', path), text);
    }
    check(join(parent, 'src'));
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

describe('the layering of src/', () => {
  it('holds: no module imports an adapter or http, no adapter imports http or a module, and no import cycle', () => {
    const graph = importGraph(SRC);
    expect(graph.size).toBeGreaterThan(100);
    expect(layeringProblems(graph)).toEqual([]);
  });

  it('is broken by a module importing an adapter, an adapter importing http, and a type-only cycle', () => {
    withSource(
      {
        'modules/contact/send.ts': "import { smtp } from '../../adapters/mail/smtp.js';\nexport const send = smtp;\n",
        'adapters/mail/smtp.ts': "import type { Reply } from '../../http/reply.js';\nexport const smtp = 1;\n",
        'http/reply.ts': 'export type Reply = string;\n',
        'adapters/sql/a.ts': "import type { B } from './b.js';\nexport type A = B;\n",
        'adapters/sql/b.ts': "import { a } from './c.js';\nexport type B = number;\nexport const b = a;\n",
        'adapters/sql/c.ts': "import type { A } from './a.js';\nexport const a: A = 1;\n",
      },
      (root) =>
        expect(layeringProblems(importGraph(root)).sort()).toEqual([
          'import cycle: src/adapters/sql/a.ts -> src/adapters/sql/b.ts -> src/adapters/sql/c.ts -> src/adapters/sql/a.ts',
          'src/adapters/mail/smtp.ts imports src/http/reply.ts: adapters must not import http',
          'src/modules/contact/send.ts imports src/adapters/mail/smtp.ts: modules must not import adapters',
        ]),
    );
  });
});
