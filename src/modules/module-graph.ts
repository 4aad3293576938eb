import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/** Which file of one module folder imports which file of another. */
export interface ImportEdge {
  from: string;
  to: string;
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)'(\.[^']+)'/g;

/**
 * The imports between the feature folders under `root` (src/modules), production files only (a
 * test may use another module's fixtures), keyed "a -> b"; type-only imports count too, since they
 * couple the folders as much.
 */
export function folderImports(root: string): Map<string, ImportEdge[]> {
  const edges = new Map<string, ImportEdge[]>();
  for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts') || !file.includes(sep)) continue;
    const folder = file.split(sep)[0]!;
    for (const [, spec] of readFileSync(join(root, file), 'utf8').matchAll(IMPORT)) {
      const target = relative(root, normalize(join(root, dirname(file), spec!)));
      if (target.startsWith('..') || !target.includes(sep)) continue;
      const other = target.split(sep)[0]!;
      if (other === folder) continue;
      // A table's foreign keys follow the data, not the code's layers (tokens point at activities,
      // whose service queues deliveries that use tokens); a *.tables.ts file imports nothing but
      // tables (src/db/table.test.ts), so such an import couples no logic.
      if (file.endsWith('.tables.ts') && target.endsWith('.tables')) continue;
      const key = `${folder} -> ${other}`;
      edges.set(key, [...(edges.get(key) ?? []), { from: file, to: target }]);
    }
  }
  return edges;
}

/**
 * The imports between the files of one folder `root` and its subfolders (src/test-support), keyed
 * "a -> b" by path without `.ts`, so that importCycles finds files that reach each other; imports
 * that leave the folder are left out.
 */
export function fileImports(root: string): Map<string, ImportEdge[]> {
  const edges = new Map<string, ImportEdge[]>();
  for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue;
    const from = file.slice(0, -'.ts'.length);
    for (const [, spec] of readFileSync(join(root, file), 'utf8').matchAll(IMPORT)) {
      const to = relative(root, normalize(join(root, dirname(file), spec!))).replace(/\.ts$/, '');
      if (to.startsWith('..') || to === from) continue;
      const key = `${from} -> ${to}`;
      edges.set(key, [...(edges.get(key) ?? []), { from: file, to }]);
    }
  }
  return edges;
}

/** The groups of two or more folders (or files) that reach each other through their imports (Tarjan's strongly connected components). */
export function importCycles(edges: Map<string, ImportEdge[]>): string[][] {
  const next = new Map<string, string[]>();
  for (const key of edges.keys()) {
    const [a, b] = key.split(' -> ') as [string, string];
    next.set(a, [...(next.get(a) ?? []), b]);
    if (!next.has(b)) next.set(b, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do group.push((w = stack.pop()!));
    while (w !== v);
    if (group.length > 1) cycles.push(group.sort());
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}
