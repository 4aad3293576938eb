import { expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const SRC = join(import.meta.dir, '..');
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)'(\.[^']+)'/g;
/** The composition root: what builds the app from the features. */
const ROOT = ['app', 'bootstrap', 'main', 'server', 'services', 'context'];

test('the queue runtime stands below the features: no production file of src/queue imports src/modules or the composition root', () => {
  const upward: string[] = [];
  for (const file of readdirSync(import.meta.dir, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
    for (const [, spec] of readFileSync(join(import.meta.dir, file), 'utf8').matchAll(IMPORT)) {
      const target = relative(SRC, normalize(join(import.meta.dir, dirname(file), spec!))).replace(/\.ts$/, '');
      if (target.startsWith('modules/') || ROOT.includes(target)) upward.push(`${file} -> ${target}`);
    }
  }
  expect(upward).toEqual([]);
});
