// The import graph of src/, read with TypeScript's own pre-processor: which file imports which.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export type ImportGraph = Map<string, string[]>;

/** Every .ts file under `root` (tests left out) with the src/ files it imports, as paths relative to `root`'s parent. */
export function importGraph(root: string): ImportGraph {
  const base = dirname(root);
  const graph: ImportGraph = new Map();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
        const { importedFiles } = ts.preProcessFile(readFileSync(path, 'utf8'), true, true);
        const local = importedFiles.map((f) => f.fileName).filter((name) => name.startsWith('.'));
        graph.set(
          relative(base, path),
          local.map((name) => relative(base, resolve(dirname(path), name.replace(/\.js$/, '.ts')))),
        );
      }
    }
  };
  walk(root);
  return graph;
}

// src/<floor>/...: what each floor must never import. Modules (the product's behaviour) know ports, not
// the adapters behind them nor the transport; adapters (storage, mail, Redis...) know neither the
// transport nor the behaviour they serve. Wiring (deps.ts, app.ts) is what joins them.
const FORBIDDEN: Readonly<Record<string, readonly string[]>> = {
  modules: ['adapters', 'http'],
  adapters: ['http', 'modules'],
};

/** Each import that crosses a forbidden floor, and each import cycle, as a sentence; none when the layering holds. */
export function layeringProblems(graph: ImportGraph): string[] {
  const floor = (path: string) => path.split('/')[1] ?? '';
  const problems: string[] = [];
  for (const [from, imports] of graph) {
    for (const to of imports) if (FORBIDDEN[floor(from)]?.includes(floor(to))) problems.push(`${from} imports ${to}: ${floor(from)} must not import ${floor(to)}`);
  }
  // Depth-first search; a file met again while it is still on the path closes a cycle.
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string) => {
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) problems.push(`import cycle: ${[...path.slice(at), next].join(' -> ')}`);
      else if (!done.has(next)) visit(next);
    }
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) visit(file);
  return problems;
}
