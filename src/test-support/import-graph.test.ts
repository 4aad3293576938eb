import { expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileImports, importCycles, reaches } from './import-graph';

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

test('the reach check follows imports through other files, names the shortest chain, and resolves a folder import to its index', () => {
  const root = mkdtempSync(join(tmpdir(), 'islet-reach-'));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  try {
    write('db/store.ts', "import type { Ctx } from '../context';\nimport { log } from '../lib/log';");
    write('db/open.ts', "import { store } from './store';");
    write('context.ts', "import type { Outbox } from './modules/outbox';");
    write('modules/outbox/index.ts', "import { store } from '../../db/store';");
    write('lib/log.ts', '');
    const edges = fileImports(root);
    expect(edges.has(`context -> ${join('modules', 'outbox', 'index')}`)).toBe(true);
    const chains = reaches(edges, (node) => node.startsWith('db'), (node) => node.startsWith('modules') || node === 'context');
    expect(chains).toEqual([[join('db', 'store'), 'context']]);
    expect(reaches(edges, (node) => node === 'context', (node) => node.startsWith('lib'))).toEqual([['context', join('modules', 'outbox', 'index'), join('db', 'store'), join('lib', 'log')]]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
