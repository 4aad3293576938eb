import { describe, expect, test } from 'bun:test';
import { settled } from './delivery-fixtures';

describe('settled, the synchronous value of a repository call', () => {
  test('gives the value of a fulfilled call', () => {
    expect(settled(Promise.resolve(42))).toBe(42);
  });

  test('throws the error of a failed call instead of returning it as a value', () => {
    const failed = (async () => {
      throw new Error('UNIQUE constraint failed: devices.id');
    })();
    // Called at once, as the fixtures do (expect().toThrow lets the rejection be reported first).
    let thrown: unknown;
    try {
      settled(failed);
    } catch (e) {
      thrown = e;
    }
    expect((thrown as Error).message).toBe('UNIQUE constraint failed: devices.id');
  });

  test('says so when the call has not settled', () => {
    expect(() => settled(new Promise(() => {}))).toThrow('the repository call has not settled');
  });
});
