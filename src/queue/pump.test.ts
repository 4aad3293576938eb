import { afterEach, describe, expect, test } from 'bun:test';
import { localWakeUps } from '../coordination/local/wake-ups';
import { createLogger } from '../lib/logger';
import { until } from '../test-support/eventually';
import { Pump, type Consumer } from './pump';

// Poll times far longer than any test waits: a round that comes sooner came from a wake-up or `more`.
const LONG = 60_000;

let loop: Pump | undefined;
afterEach(async () => {
  await loop?.stop();
  loop = undefined;
});

function pump(options: Partial<Consumer> & Pick<Consumer, 'round'>) {
  const wakeUps = localWakeUps();
  const logs: string[] = [];
  loop = new Pump(wakeUps, createLogger('info', (line) => logs.push(line)), { name: 'test pump', pollMs: LONG, wakeOn: ['deliveries-queued'], ...options });
  loop.start();
  return { wakeUps, logs, loop };
}

describe('Pump', () => {
  test('a wake-up cuts the idle wait short; one heard during a round skips the next wait', async () => {
    let rounds = 0;
    let release: () => void = () => {};
    const { wakeUps } = pump({
      round: async () => {
        rounds++;
        // The second round waits for the test, which notifies meanwhile.
        if (rounds === 2) await new Promise<void>((r) => (release = r));
      },
    });
    await until('the first round ran', () => rounds === 1);
    wakeUps.notify('deliveries-queued');
    await until('a wake-up started the second round', () => rounds === 2);
    wakeUps.notify('deliveries-queued');
    release();
    await until('the wake-up heard during the round started a third', () => rounds === 3);
    await Bun.sleep(50);
    expect(rounds).toBe(3);
  });

  test('a round that says more is due runs again at once; stop ends the loop after the round under way', async () => {
    let rounds = 0;
    const { loop } = pump({ round: async () => ++rounds < 5 });
    await until('five rounds ran back to back', () => rounds === 5);
    await loop.stop();
    await Bun.sleep(20);
    expect(rounds).toBe(5);
  });

  test('a failure is logged and the loop goes on at its poll; a storage failure is not logged and waits failedPollMs', async () => {
    let rounds = 0;
    const { logs } = pump({
      pollMs: 10,
      failedPollMs: LONG,
      quiet: (e) => (e as Error).message === 'disk full',
      round: async () => {
        rounds++;
        if (rounds === 1) throw new Error('a bug');
        if (rounds === 2) throw new Error('disk full');
      },
    });
    await until('the second round failed on the storage', () => rounds === 2);
    await Bun.sleep(100);
    expect(rounds).toBe(2);
    expect(logs.filter((l) => l.includes('test pump failed'))).toHaveLength(1);
    expect(logs[0]).toContain('a bug');
  });

  test('idle, a round comes at each poll; a wake-up comes sooner', async () => {
    const rounds: number[] = [];
    const started = performance.now();
    const { wakeUps } = pump({ pollMs: 300, round: async () => void rounds.push(performance.now() - started) });
    await until('the second round, at the poll', () => rounds.length === 2);
    expect(rounds[1]!).toBeGreaterThanOrEqual(290);
    wakeUps.notify('deliveries-queued');
    await until('the third round, woken', () => rounds.length === 3);
    expect(rounds[2]! - rounds[1]!).toBeLessThan(250);
  });

  test('recovery runs once before the first round; a failed one fails that round and is tried again before the next', async () => {
    let recoveries = 0;
    let rounds = 0;
    const { logs, loop } = pump({
      pollMs: 10,
      recover: async () => {
        if (++recoveries === 1) throw new Error('database is locked');
      },
      round: async () => void rounds++,
    });
    await until('three rounds ran', () => rounds >= 3);
    expect(recoveries).toBe(2);
    expect(logs.filter((l) => l.includes('database is locked'))).toHaveLength(1);
    await loop.recover();
    expect(recoveries).toBe(2);
  });
});
