import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';

describe('logger', () => {
  test('lines written to stdout once per turn arrive whole and in order, also when the process exits in the same turn', async () => {
    const logger = join(import.meta.dir, 'logger.ts');
    const script = `const { createLogger } = await import(${JSON.stringify(logger)});
const log = createLogger('info');
log.debug('hidden');
for (let i = 0; i < 3; i++) log.info('line', { i });
await new Promise((r) => setTimeout(r, 5));
log.warn('last', { i: 3 });
process.exit(0);`;
    const proc = Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'pipe' });
    const out = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.level, l.msg, l.i])).toEqual([
      ['info', 'line', 0],
      ['info', 'line', 1],
      ['info', 'line', 2],
      ['warn', 'last', 3],
    ]);
  });
});
