import { describe, expect, test } from 'bun:test';
import { FakeClock } from '../../lib/clock';
import { silentLogger } from '../../lib/logger';
import { billingPeriod } from '../live-activities/billing-period';
import { Scheduler, type Job } from './scheduler';

describe('scheduler', () => {
  test('runs each job on its own interval by the clock', async () => {
    const clock = new FakeClock(0);
    const runs: string[] = [];
    const job = (name: string, intervalMs: number): Job => ({ name, intervalMs, run: (now) => void runs.push(`${name}@${now}`) });
    const s = new Scheduler([job('fast', 1000), job('slow', 5000)], clock, silentLogger);
    await s.tick();
    clock.advance(999);
    await s.tick();
    clock.advance(1);
    await s.tick();
    clock.advance(4000);
    await s.tick();
    expect(runs).toEqual(['fast@0', 'slow@0', 'fast@1000', 'fast@5000', 'slow@5000']);
  });

  test('runs no job while another instance leads, and catches up once it leads', async () => {
    const clock = new FakeClock(0);
    const runs: number[] = [];
    let leader = false;
    const s = new Scheduler([{ name: 'expiry', intervalMs: 1000, run: (now) => void runs.push(now) }], clock, silentLogger, undefined, undefined, {
      isLeader: async () => leader,
      current: () => leader,
      release: async () => {},
    });
    await s.tick();
    clock.advance(5000);
    await s.tick();
    expect(runs).toEqual([]);
    leader = true;
    await s.tick();
    expect(runs).toEqual([5000]);
  });

  test('never runs a job twice at once, and stop waits for it', async () => {
    const clock = new FakeClock(0);
    let release!: () => void;
    let active = 0;
    let maxActive = 0;
    let finished = 0;
    const job: Job = {
      name: 'slow',
      intervalMs: 1,
      run: async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise<void>((r) => (release = r));
        active--;
        finished++;
      },
    };
    const s = new Scheduler([job], clock, silentLogger);
    const first = s.tick();
    clock.advance(10);
    await s.tick(); // still running: skipped, returns at once
    expect(maxActive).toBe(1);
    const stopped = s.stop();
    release();
    await Promise.all([first, stopped]);
    expect(finished).toBe(1);
  });

  test('a failing job is logged and runs again next time', async () => {
    const clock = new FakeClock(0);
    const errors: string[] = [];
    const logger = { ...silentLogger, error: (msg: string, f?: Record<string, unknown>) => void errors.push(`${msg}: ${f?.job} ${f?.error}`) };
    let calls = 0;
    const s = new Scheduler([{ name: 'flaky', intervalMs: 10, run: () => { calls++; throw new Error('boom'); } }], clock, logger);
    await s.tick();
    clock.advance(10);
    await s.tick();
    expect(calls).toBe(2);
    expect(errors).toEqual(['scheduled job failed: flaky boom', 'scheduled job failed: flaky boom']);
  });

  test('the billing period is the calendar month in UTC', () => {
    expect(billingPeriod(Date.parse('2026-12-31T23:59:59.999Z'))).toEqual({
      start: Date.parse('2026-12-01T00:00:00Z'),
      end: Date.parse('2027-01-01T00:00:00Z'),
    });
    expect(billingPeriod(Date.parse('2026-03-01T00:00:00Z')).start).toBe(Date.parse('2026-03-01T00:00:00Z'));
  });
});
