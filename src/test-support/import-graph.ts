import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/** Which file imports which: `from` a file path, `to` the imported path without `.ts`. */
export interface ImportEdge {
  from: string;
  to: string;
}

/** Static, re-export, type-only, side-effect and dynamic imports of a relative path. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.[^'"]+)['"]/g;

/** The relative paths a file's text imports. */
export const importSpecifiers = (text: string): string[] => [...text.matchAll(IMPORT)].map(([, spec]) => spec!);

/** A test file, or a file of `src/test-support` (paths relative to `src`). */
export const isTestCode = (file: string): boolean => file.endsWith('.test.ts') || file.split(sep)[0] === 'test-support';

/** The `.ts` files under `root`, relative to it, sorted. */
export const tsFiles = (root: string): string[] =>
  readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .sort();

/** The module an import names, relative to `root` and without `.ts`: `x.ts`, else `x/index.ts`, else the path as written. */
function resolve(root: string, file: string, spec: string): string {
  const path = normalize(join(root, dirname(file), spec)).replace(/\.ts$/, '');
  const found = existsSync(`${path}.ts`) ? path : existsSync(join(path, 'index.ts')) ? join(path, 'index') : path;
  return relative(root, found);
}

/**
 * The imports between the feature folders under `root` (src/modules), production files only (a
 * test may use another module's fixtures), keyed "a -> b"; type-only imports count too, since they
 * couple the folders as much.
 */
export function folderImports(root: string): Map<string, ImportEdge[]> {
  const edges = new Map<string, ImportEdge[]>();
  for (const file of tsFiles(root)) {
    if (file.endsWith('.test.ts') || !file.includes(sep)) continue;
    const folder = file.split(sep)[0]!;
    for (const spec of importSpecifiers(readFileSync(join(root, file), 'utf8'))) {
      const target = relative(root, normalize(join(root, dirname(file), spec)));
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
 * The imports between the files under `root` (src, or src/test-support) that `include` keeps (all
 * by default), keyed "a -> b" by path without `.ts`, so that importCycles finds files that reach
 * each other; imports that leave the folder are left out.
 */
export function fileImports(root: string, include: (file: string) => boolean = () => true): Map<string, ImportEdge[]> {
  const edges = new Map<string, ImportEdge[]>();
  for (const file of tsFiles(root).filter(include)) {
    const from = file.slice(0, -'.ts'.length);
    for (const spec of importSpecifiers(readFileSync(join(root, file), 'utf8'))) {
      const to = resolve(root, file, spec);
      if (to.startsWith('..') || to === from) continue;
      const key = `${from} -> ${to}`;
      edges.set(key, [...(edges.get(key) ?? []), { from: file, to }]);
    }
  }
  return edges;
}

/** The imports of every member of a cycle, as "from -> to" lines, for a failure message. */
export const explainCycle = (edges: Map<string, ImportEdge[]>, cycle: string[]): string[] =>
  [...edges].filter(([key]) => cycle.includes(key.split(' -> ')[0]!) && cycle.includes(key.split(' -> ')[1]!)).flatMap(([, e]) => e.map((x) => `${x.from} -> ${x.to}`));

/**
 * The import chains from the files `from` keeps to the files `to` keeps, directly or through
 * other files, one chain (the shortest) per file reached: `['db/x', 'context', 'modules/y/z']`.
 */
export function reaches(edges: Map<string, ImportEdge[]>, from: (node: string) => boolean, to: (node: string) => boolean): string[][] {
  const next = new Map<string, string[]>();
  for (const key of edges.keys()) {
    const [a, b] = key.split(' -> ') as [string, string];
    next.set(a, [...(next.get(a) ?? []), b]);
  }
  const start = [...next.keys()].filter(from).sort();
  const parent = new Map<string, string | undefined>(start.map((node) => [node, undefined]));
  const queue = [...start];
  const chains: string[][] = [];
  for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
    if (to(node)) {
      const chain = [node];
      for (let p = parent.get(node); p !== undefined; p = parent.get(p)) chain.unshift(p);
      chains.push(chain);
      continue;
    }
    for (const w of next.get(node) ?? []) {
      if (parent.has(w)) continue;
      parent.set(w, node);
      queue.push(w);
    }
  }
  return chains;
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
