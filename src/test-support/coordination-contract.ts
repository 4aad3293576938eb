import { describe, expect, test } from 'bun:test';
import { FakeClock } from '../lib/clock';
import { silentLogger } from '../lib/logger';
import { EndpointHealth, type EndpointRecord } from '../modules/delivery/endpoint-health/endpoint-health';
import type { Coordination } from '../coordination/coordination';
import { until } from './eventually';

/**
 * What every coordination must do, seen from one instance: run it against each implementation
 * (`describeCoordinationContract('local', () => localCoordination(…))`). `make` answers a fresh
 * coordination of a fresh installation (its own database) and `close` ends it. Every call is
 * awaited, so an implementation whose answers come later still passes.
 */
export function describeCoordinationContract(name: string, make: () => Promise<{ coordination: Coordination; close(): Promise<void> | void }>) {
  const withCoordination = (run: (c: Coordination) => Promise<void>) => async () => {
    const { coordination, close } = await make();
    try {
      await run(coordination);
    } finally {
      await close();
    }
  };

  describe(`coordination contract: ${name}`, () => {
    test(
      'instance: a lease is taken and given back, and start-up recovery runs the reset and answers what it answered',
      withCoordination(async ({ instance }) => {
        const lease = await instance.acquire();
        expect(lease).toBeDefined();
        let resets = 0;
        expect(await instance.recover('deliveries', () => ++resets && 7)).toBe(7);
        expect(resets).toBe(1);
        await lease!.release();
        const again = await instance.acquire();
        expect(again).toBeDefined();
        await again!.release();
      }),
    );

    test(
      'wake-ups: a notify reaches the listeners of its topic, and no listener after it unsubscribed',
      withCoordination(async ({ wakeUps }) => {
        const heard = { queued: 0, changed: 0, gone: 0 };
        const offQueued = wakeUps.on('deliveries-queued', () => heard.queued++);
        wakeUps.on('deliveries-changed', () => heard.changed++);
        const offGone = wakeUps.on('deliveries-queued', () => heard.gone++);
        offGone();
        wakeUps.notify('deliveries-queued');
        await until('the queued listener hears the notify', () => heard.queued === 1);
        wakeUps.notify('deliveries-changed');
        await until('the changed listener hears the notify', () => heard.changed === 1);
        expect(heard).toEqual({ queued: 1, changed: 1, gone: 0 });
        offQueued();
      }),
    );

    test(
      'leadership: a lone instance leads the scheduler (once it took the lead), and current() says so without asking',
      withCoordination(async ({ leadership }) => {
        await leadership.isLeader();
        await until('current() says it leads', () => leadership.current());
        expect(await leadership.isLeader()).toBe(true);
        await leadership.release();
      }),
    );

    test(
      'instances: once it holds its lease, this instance is among the live ones, under its id',
      withCoordination(async ({ instance, instances }) => {
        const lease = await instance.acquire();
        try {
          const self = (await instances.live()).find((i) => i.id === instance.id);
          expect(self).toMatchObject({ id: instance.id, version: expect.any(String) });
          expect(self!.lastSeen).toBeGreaterThanOrEqual(self!.startedAt);
        } finally {
          lease?.release();
        }
      }),
    );

    test(
      'keyed locks: jobs of one key run one at a time in call order, other keys go meanwhile, a failure does not block the next',
      withCoordination(async (c) => {
        const locks = c.keyedLocks('activity-streams');
        const order: string[] = [];
        let releaseFirst!: () => void;
        const first = locks.run('app\nk', async () => {
          order.push('first starts');
          await new Promise<void>((r) => (releaseFirst = r));
          order.push('first ends');
          throw new Error('first failed');
        });
        const second = locks.run('app\nk', async () => {
          order.push('second runs');
          return 2;
        });
        expect(await locks.run('app\nother', async () => 'other')).toBe('other');
        await until('the first job starts', () => releaseFirst !== undefined);
        expect(order).toEqual(['first starts']);
        releaseFirst();
        await expect(first).rejects.toThrow('first failed');
        expect(await second).toBe(2);
        expect(order).toEqual(['first starts', 'first ends', 'second runs']);
      }),
    );

    test(
      'sessions: a session is found by the hash of its id until it is deleted',
      withCoordination(async (c) => {
        const store = c.sessions();
        const now = Date.parse('2026-01-15T12:00:00.000Z');
        const session = { csrfToken: 'csrf', expiresAt: now + 60_000, tokenHash: 'h' };
        await store.set('hash-1', session, now);
        expect(await store.get('hash-1')).toEqual(session);
        expect(await store.get('hash-2')).toBeUndefined();
        await store.delete('hash-1');
        expect(await store.get('hash-1')).toBeUndefined();
      }),
    );

    test(
      'endpoint health: every EndpointHealth on the state sees a channel another took down, and a forgotten channel is known forgotten',
      withCoordination(async (c) => {
        const state = c.endpointHealth<EndpointRecord>();
        const clock = new FakeClock();
        const key = { appId: 'a', provider: 'apns' as const, endpoint: 'https://127.0.0.1:1' };
        const worker = new EndpointHealth(clock, silentLogger, state, { downAfterMs: 0 });
        for (let i = 0; i < 3; i++) worker.connectionFailed(key, 'refused', false);
        const reader = new EndpointHealth(clock, silentLogger, state);
        expect(reader.list('a').map((s) => s.state)).toEqual(['down']);
        expect(reader.admit(key, undefined, clock.now())).toEqual({ go: false, hold: true });
        reader.tokenBackoff('device|url', clock.now() + 5000);
        expect(worker.admit({ ...key, endpoint: 'https://127.0.0.1:2' }, 'device|url', clock.now())).toEqual({ go: false, hold: false, until: clock.now() + 5000 });
        worker.forget('a', 'apns');
        expect([state.endpoints.size, state.forgotten.has(EndpointHealth.id(key))]).toEqual([0, true]);
        // A result of a request sent before the forget says nothing about the channel any more.
        expect(reader.connectionFailed(key, 'refused', false)).toBe(false);
        expect(reader.list('a')).toEqual([]);
      }),
    );

    test(
      'endpoint health: one taker of a down endpoint’s probe per round, another once the round is over or the probe was lost',
      withCoordination(async (c) => {
        const state = c.endpointHealth<EndpointRecord>();
        const now = Date.parse('2026-01-15T12:00:00.000Z');
        expect([await state.takeProbe('a|apns|x', now, now, 60_000), await state.takeProbe('a|apns|x', now, now, 60_000)]).toEqual([true, false]);
        expect(await state.takeProbe('a|apns|y', now, now, 60_000)).toBe(true);
        // The next round is due after the probe failed: its probe is taken once more.
        expect([await state.takeProbe('a|apns|x', now + 2000, now + 2000, 60_000), await state.takeProbe('a|apns|x', now + 2000, now + 2000, 60_000)]).toEqual([true, false]);
        expect(await state.takeProbe('a|apns|x', now + 2000, now + 70_000, 60_000)).toBe(true);
      }),
    );

    test(
      'rate limits: a key gets a burst of twice its rate, then waits; other keys are not slowed; a rate of 0 never limits',
      withCoordination(async (c) => {
        const clock = new FakeClock();
        const limit = c.rateLimiter('service-api', 1, clock);
        expect([await limit('app-1'), await limit('app-1'), await limit('app-1')]).toEqual([0, 0, 1]);
        expect(await limit('app-2')).toBe(0);
        clock.advance(1000);
        expect(await limit('app-1')).toBe(0);
        const off = c.rateLimiter('off', 0, clock);
        for (let i = 0; i < 10; i++) expect(await off('app-1')).toBe(0);
      }),
    );

    test(
      'failure throttles: after the free failures each one doubles the wait; a success clears it; addresses and names are apart',
      withCoordination(async (c) => {
        const clock = new FakeClock();
        const throttle = c.failureThrottle('admin-token', clock, { freeFailures: 2, baseLockMs: 1000 });
        const other = c.failureThrottle('service-keys', clock, { freeFailures: 2 });
        for (let i = 0; i < 2; i++) await throttle.fail('198.51.100.7');
        expect(await throttle.wait('198.51.100.7')).toBe(0);
        await throttle.fail('198.51.100.7');
        expect(await throttle.wait('198.51.100.7')).toBe(1);
        await throttle.fail('198.51.100.7');
        expect(await throttle.wait('198.51.100.7')).toBe(2);
        expect([await throttle.wait('198.51.100.8'), await other.wait('198.51.100.7')]).toEqual([0, 0]);
        await throttle.succeed('198.51.100.7');
        expect(await throttle.wait('198.51.100.7')).toBe(0);
      }),
    );
  });
}
