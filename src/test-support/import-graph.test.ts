import { expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileImports, importCycles } from './import-graph';

test('no file of src/test-support reaches itself through the imports of others (a stand-in and the parts it asks share a small file instead)', () => {
  const edges = fileImports(import.meta.dir);
  const cycles = importCycles(edges);
  const imports = (cycle: string[]) => [...edges.keys()].filter((key) => cycle.includes(key.split(' -> ')[0]!) && cycle.includes(key.split(' -> ')[1]!));
  expect(cycles.map((cycle) => ({ cycle, imports: imports(cycle) }))).toEqual([]);
  // The graph is read at all: the stand-in imports the phones' types and the shared answer.
  expect(edges.has('apns-standin -> apns-device-model')).toBe(true);
  expect(edges.has('apns-device-model -> apns-answer')).toBe(true);
});

test('the file check finds a cycle through three files (type-only, re-export and dynamic imports included) and ignores imports that leave the folder', () => {
  const root = mkdtempSync(join(tmpdir(), 'islet-file-graph-'));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  try {
    write('a.ts', "import type { B } from './b';\nimport { lib } from '../lib/x';");
    write('b.ts', "export { c } from './deep/c';");
    write('deep/c.ts', "const a = await import('../a');");
    write('d.ts', "import { a } from './a.ts';");
    const edges = fileImports(root);
    expect(importCycles(edges)).toEqual([['a', 'b', join('deep', 'c')]]);
    expect(edges.get('d -> a')).toEqual([{ from: 'd.ts', to: 'a' }]);
    expect([...edges.keys()].some((key) => key.includes('lib'))).toBe(false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
