import { describe, expect, test } from 'bun:test';
import { eventually, until } from './eventually';

describe('the waiting helpers', () => {
  test('until resolves once the condition holds, and fails naming what it awaited, with the detail read at that moment', async () => {
    let checks = 0;
    await until('the third check', () => ++checks === 3);
    expect(checks).toBe(3);
    let log = 'started';
    const failed = until('the phone rings', async () => false, { timeoutMs: 30, detail: () => log });
    log = 'started, then stopped';
    await expect(failed).rejects.toThrow('timed out waiting until the phone rings\nstarted, then stopped');
  });

  test('eventually answers what the check returns once it stops throwing, and fails with its last error', async () => {
    let checks = 0;
    expect(
      await eventually(() => {
        expect(++checks).toBe(3);
        return 'third';
      }),
    ).toBe('third');
    await expect(eventually(() => expect(1).toBe(2), { timeoutMs: 30, detail: () => 'output: none' })).rejects.toThrow(/Expected: 2[\s\S]*output: none/);
  });
});
