import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { FakeClock } from '../../lib/clock';
import { silentLogger } from '../../lib/logger';
import { EndpointHealth, PROBE_LOST_MS, type EndpointRecord } from '../../modules/delivery/endpoint-health/endpoint-health';
import { clusterPair } from '../../test-support/cluster-pair';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, startPostgres } from '../../test-support/postgres';
import { pgEndpointHealth } from './endpoint-health';
import { until } from '../../test-support/eventually';

beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const key = { appId: 'demo', provider: 'apns' as const, endpoint: 'https://127.0.0.1:1' };

async function twoInstances(reloadMs?: number, database?: { url: string }) {
  const pair = await clusterPair(database);
  const clock = new FakeClock();
  const stateA = pgEndpointHealth<EndpointRecord>(pair.a, reloadMs);
  const stateB = pgEndpointHealth<EndpointRecord>(pair.b, reloadMs);
  await Promise.all([stateA.ready, stateB.ready]);
  cleanup = async () => {
    await Promise.all([stateA.stop(), stateB.stop()]);
    await pair.close();
  };
  const onA = new EndpointHealth(clock, silentLogger, stateA, { downAfterMs: 0 });
  const onB = new EndpointHealth(clock, silentLogger, stateB, { downAfterMs: 0 });
  return { pair, clock, onA, onB };
}

/** Another instance hears of a change after a round trip through PostgreSQL: generously. */
const HEARD = { timeoutMs: 20_000, intervalMs: 5 };

describe('endpoint health on PostgreSQL', () => {
  test(
    'an endpoint A takes down holds B’s deliveries for it too, both list it once, and an answer on B ends the outage on A',
    async () => {
      const { clock, onA, onB } = await twoInstances();
      for (let i = 0; i < 3; i++) onA.connectionFailed(key, 'connection refused', false);
      expect(onA.admit(key, undefined, clock.now())).toEqual({ go: false, hold: true });
      await until('B lists the endpoint down', () => onB.list('demo')[0]?.state === 'down', HEARD);
      expect(onB.admit(key, undefined, clock.now())).toEqual({ go: false, hold: true });
      expect(onB.list('demo')).toEqual(onA.list('demo'));
      expect(onB.list('demo')).toHaveLength(1);
      expect(onB.list('demo')[0]).toMatchObject({ state: 'down', reason: 'connection refused' });

      clock.advance(60_000);
      expect(onB.admit(key, undefined, clock.now())).toEqual({ go: true, probe: true });
      expect(await onB.takeProbe(key, clock.now())).toBe(true);
      // The probe B took is seen by A: A holds meanwhile instead of sending a second one.
      await until('A holds while the probe B took is out', () => onA.admit(key, undefined, clock.now()).go === false, HEARD);
      expect(onB.answered(key)?.state).toBe('down');
      await until('A lists the endpoint healthy', () => onA.list('demo')[0]?.state === 'healthy', HEARD);
      expect(onA.admit(key, undefined, clock.now())).toEqual({ go: true, probe: false });
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'one probe at a time across instances, whatever each one’s copy says: the next round’s goes once the first failed',
    async () => {
      const { clock, onA, onB } = await twoInstances();
      for (let i = 0; i < 3; i++) onA.connectionFailed(key, 'connection refused', false);
      await until('B lists the endpoint down', () => onB.list('demo')[0]?.state === 'down', HEARD);
      clock.advance(1000);
      const [tookA, tookB] = await Promise.all([onA.takeProbe(key, clock.now()), onB.takeProbe(key, clock.now())]);
      expect([tookA, tookB].sort()).toEqual([false, true]);
      const [prober, other] = tookA ? [onA, onB] : [onB, onA];
      expect(await other.takeProbe(key, clock.now())).toBe(false);
      // The probe fails: the next one is due 2 s later, and may then go from either instance, once.
      expect(prober.connectionFailed(key, 'connection refused', true)).toBe(true);
      const due = prober.list('demo')[0]!.nextProbeAt!;
      await until('the other instance knows when the next probe is due', () => other.list('demo')[0]?.nextProbeAt === due, HEARD);
      clock.set(due);
      expect(await other.takeProbe(key, clock.now())).toBe(true);
      expect(await prober.takeProbe(key, clock.now())).toBe(false);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'a probe taken by an instance that died is given up after PROBE_LOST_MS, and another instance probes',
    async () => {
      const { clock, onA, onB } = await twoInstances();
      for (let i = 0; i < 3; i++) onA.connectionFailed(key, 'connection refused', false);
      clock.advance(60_000);
      expect(onA.admit(key, undefined, clock.now())).toEqual({ go: true, probe: true });
      expect(await onA.takeProbe(key, clock.now())).toBe(true);
      // A dies with its probe out: B holds while the probe could still answer…
      await until('B holds while the probe A took is out', () => onB.admit(key, undefined, clock.now()).go === false, HEARD);
      expect(onB.probesDue(clock.now())).toEqual([]);
      // …and sends its own once no request could still be under way.
      clock.advance(PROBE_LOST_MS);
      expect(onB.probesDue(clock.now())).toEqual([key]);
      expect(onB.admit(key, undefined, clock.now())).toEqual({ go: true, probe: true });
      expect(await onB.takeProbe(key, clock.now())).toBe(true);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'credentials changed on A: B forgets the endpoint too; a token backoff on B slows A’s deliveries to that token',
    async () => {
      const { clock, onA, onB } = await twoInstances();
      for (let i = 0; i < 3; i++) onB.connectionFailed(key, 'connection refused', false);
      await until('A lists the endpoint B took down', () => onA.list('demo').length === 1, HEARD);
      onA.forget('demo', 'apns');
      await until('B forgets the endpoint', () => onB.list('demo').length === 0, HEARD);
      // A result of a request B sent before the forget says nothing about the endpoint any more.
      expect(onB.connectionFailed(key, 'connection refused', false)).toBe(false);

      onB.tokenBackoff('device-1|url', clock.now() + 5000);
      await until('A backs off the token B backed off', () => onA.admit(key, 'device-1|url', clock.now()).go === false, HEARD);
      expect(onA.admit(key, 'device-1|url', clock.now())).toEqual({ go: false, hold: false, until: clock.now() + 5000 });
      expect(onA.admit(key, 'device-2|url', clock.now())).toEqual({ go: true, probe: false });
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'a record written without a notice (a lost one) reaches the other instances at the periodic reload',
    async () => {
      const { pair, onA } = await twoInstances(100);
      const record = { key, state: 'down', reason: 'tls', since: 1, failures: 3, failingSince: 0, throttles: 0, probes: 0, nextProbeAt: 0, probeInFlight: true, probeTakenAt: 0, probeReleasedAt: null, slowUntil: 0 };
      await pair.b.sql`INSERT INTO shared_state (map, key, value, updated_at) VALUES ('endpoint-health:endpoints', ${EndpointHealth.id(key)}, ${JSON.stringify(record)}, 0)`;
      await until('A lists the endpoint down', () => onA.list('demo')[0]?.state === 'down', HEARD);
      await pair.b.sql`DELETE FROM shared_state`;
      await until('A lists no endpoint', () => onA.list('demo').length === 0, HEARD);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'a change made while PostgreSQL is away reaches the other instance once it is back',
    async () => {
      // A server of its own: stopping the test process's shared one would disturb other test files.
      const pg = await startPostgres();
      try {
        const { onA, onB } = await twoInstances(200, { url: pg.url() });
        await pg.pause();
        for (let i = 0; i < 3; i++) onA.connectionFailed(key, 'connection refused', false);
        expect(onA.list('demo')[0]?.state).toBe('down');
        await pg.resume();
        await until('B lists the endpoint down', () => onB.list('demo')[0]?.state === 'down', HEARD);
      } finally {
        await cleanup?.();
        cleanup = undefined;
        await pg.stop();
      }
    },
    POSTGRES_TEST_TIMEOUT_MS * 2,
  );
});
