import { describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { folderImports, importCycles } from '../test-support/import-graph';

/** The imports of every folder of a cycle, as "from -> to" lines, for the failure message. */
const explain = (edges: ReturnType<typeof folderImports>, cycle: string[]) =>
  [...edges].filter(([key]) => cycle.includes(key.split(' -> ')[0]!) && cycle.includes(key.split(' -> ')[1]!)).flatMap(([, e]) => e.map((x) => `${x.from} -> ${x.to}`));

describe('module boundaries', () => {
  test('no folder under src/modules reaches itself through the imports of others (no cycle, not just no pair)', () => {
    const edges = folderImports(import.meta.dir);
    const cycles = importCycles(edges);
    expect(cycles.map((cycle) => ({ cycle, imports: explain(edges, cycle) }))).toEqual([]);
    // The graph is read at all: the routes of features import the admin guard.
    expect(edges.size).toBeGreaterThan(10);
  });

  test('the check finds a cycle through three folders and a pair, type-only and dynamic imports included, tests left out', () => {
    const root = mkdtempSync(join(tmpdir(), 'islet-graph-'));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    try {
      write('a/a.ts', "import { b } from '../b/b';");
      write('b/b.ts', "import type { C } from '../c/deep/c';");
      write('c/deep/c.ts', "const a = await import('../../a/a');");
      write('d/d.ts', "export { e } from '../e/e';\nimport { x } from '../../lib/x';");
      write('e/e.ts', "import { d } from '../d/d';");
      write('f/f.test.ts', "import { a } from '../a/a';");
      write('a/a.helper.ts', "import { f } from '../f/f.test';");
      const edges = folderImports(root);
      expect(importCycles(edges)).toEqual([
        ['a', 'b', 'c'],
        ['d', 'e'],
      ]);
      expect(edges.get('d -> e')).toEqual([{ from: join('d', 'd.ts'), to: join('e', 'e') }]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
