import { describe, expect, test } from 'bun:test';
import type { EndpointHealthState, StateMap } from '../../../coordination/coordination';
import { localEndpointHealth } from '../../../coordination/local/endpoint-health';
import { FakeClock } from '../../../lib/clock';
import { createLogger } from '../../../lib/logger';
import { EndpointHealth, endpointOf, type EndpointRecord } from './endpoint-health';

const key = { appId: 'a', provider: 'apns' as const, endpoint: 'https://api.push.apple.com' };

/**
 * A state map that hands out and keeps copies, as a shared store does (each read a row, each write
 * an UPDATE): a change EndpointHealth does not write back is lost in it.
 */
class CopyingMap<K, V> implements StateMap<K, V> {
  private readonly map = new Map<K, V>();
  get = (key: K) => (this.map.has(key) ? structuredClone(this.map.get(key)) : undefined);
  set = (key: K, value: V) => this.map.set(key, structuredClone(value));
  delete = (key: K) => this.map.delete(key);
  has = (key: K) => this.map.has(key);
  get size() {
    return this.map.size;
  }
  entries = () => [...this.map].map(([k, v]): [K, V] => [k, structuredClone(v)])[Symbol.iterator]();
  values = () => [...this.map.values()].map((v) => structuredClone(v))[Symbol.iterator]();
}

const states: Record<string, () => EndpointHealthState<EndpointRecord>> = {
  'in memory': localEndpointHealth,
  'copied at every read and write, as in a shared store': () => ({
    endpoints: new CopyingMap(),
    forgotten: new CopyingMap(),
    tokenBackoffs: new CopyingMap(),
    takeProbe: localEndpointHealth().takeProbe,
  }),
};

for (const [name, makeState] of Object.entries(states)) {
  const health = (options: ConstructorParameters<typeof EndpointHealth>[3] = {}) => {
    const clock = new FakeClock();
    const logs: string[] = [];
    return { clock, logs, health: new EndpointHealth(clock, createLogger('info', (l) => logs.push(l)), makeState(), { downAfterMs: 0, ...options }) };
  };

  describe(`endpoint health (state machine, ${name})`, () => {
    test('the endpoint of a request is its app, provider and URL origin', () => {
      expect(endpointOf('a', 'apns', 'https://api.push.apple.com/3/device/abc')).toEqual(key);
      expect(endpointOf('a', 'fcm', 'http://127.0.0.1:9/v1/projects/p/messages:send').endpoint).toBe('http://127.0.0.1:9');
    });

    test('down after 3 failures without an answer; probes back off 1, 2, 4 … up to the cap; one probe at a time', () => {
      const { clock, logs, health: h } = health({ probeCapMs: 4000 });
      expect(h.connectionFailed(key, 'refused', false)).toBe(false);
      expect(h.list()[0]!.state).toBe('degraded');
      h.connectionFailed(key, 'refused', false);
      expect(h.connectionFailed(key, 'refused', false)).toBe(true);
      expect(h.list()[0]).toMatchObject({ state: 'down', reason: 'refused', nextProbeAt: clock.now() + 1000 });
      expect(logs.filter((l) => l.includes('delivery channel down'))).toHaveLength(1);
      expect(h.admit(key, undefined, clock.now())).toEqual({ go: false, hold: true });
      for (const wait of [1000, 2000, 4000, 4000]) {
        clock.advance(wait);
        expect(h.admit(key, undefined, clock.now())).toEqual({ go: true, probe: true });
        expect(h.takeProbe(key, clock.now())).toBe(true);
        expect(h.takeProbe(key, clock.now())).toBe(false);
        // While the probe is out, everything else is held.
        expect(h.admit(key, undefined, clock.now())).toEqual({ go: false, hold: true });
        h.connectionFailed(key, 'still refused', true);
      }
      expect(h.list()[0]!.nextProbeAt).toBe(clock.now() + 4000);
    });

    test("forgetting an app's endpoints to a provider drops only those; a request that was in flight then says nothing more about them", () => {
      const { clock, health: h } = health();
      const sandbox = { ...key, endpoint: 'https://api.sandbox.push.apple.com' };
      const fcm = { appId: 'a', provider: 'fcm' as const, endpoint: 'https://fcm.googleapis.com' };
      const other = { ...key, appId: 'b' };
      expect(h.admit(key, undefined, clock.now())).toEqual({ go: true, probe: false });
      for (const k of [key, sandbox, fcm, other]) for (let i = 0; i < 3; i++) h.connectionFailed(k, 'refused', false);
      h.forget('a', 'apns');
      expect(h.list().map((c) => [c.appId, c.provider, c.state])).toEqual([
        ['a', 'fcm', 'down'],
        ['b', 'apns', 'down'],
      ]);
      // The request admitted before fails now: not counted.
      expect(h.connectionFailed(key, 'refused', true)).toBe(false);
      expect(h.list('a').map((c) => c.provider)).toEqual(['fcm']);
      // A request sent after: counted again.
      expect(h.admit(key, undefined, clock.now())).toEqual({ go: true, probe: false });
      h.connectionFailed(key, 'refused', false);
      expect(h.list('a').map((c) => [c.provider, c.state])).toEqual([
        ['fcm', 'down'],
        ['apns', 'degraded'],
      ]);
    });

    test('an answer ends an outage at once and says since when it was down', () => {
      const { clock, health: h } = health();
      for (let i = 0; i < 3; i++) h.connectionFailed(key, 'refused', false);
      const since = clock.now();
      clock.advance(1000);
      expect(h.admit(key, undefined, clock.now())).toEqual({ go: true, probe: true });
      expect(h.answered(key)).toMatchObject({ state: 'down', since });
      expect(h.list()[0]).toMatchObject({ state: 'healthy', reason: null });
      expect(h.admit(key, undefined, clock.now())).toEqual({ go: true, probe: false });
    });

    test('failures in one instant do not take the endpoint down within the real-time window', () => {
      const { health: h } = health({ downAfterMs: 60_000 });
      for (let i = 0; i < 250; i++) expect(h.connectionFailed(key, 'connection lost', false)).toBe(false);
      expect(h.list()[0]!.state).toBe('degraded');
    });

    test('throttling: an isolated answer without Retry-After waits under a second; a Retry-After or a streak of 5 slows the whole endpoint', () => {
      const { clock, health: h } = health();
      const half = () => 0.5;
      expect(h.throttled(key, 'ServiceUnavailable', undefined, half)).toBe(clock.now() + 500);
      expect(h.admit(key, undefined, clock.now())).toEqual({ go: true, probe: false });
      expect(h.delivered(key)).toBeUndefined();
      for (let i = 0; i < 4; i++) h.throttled(key, 'ServiceUnavailable', undefined, half);
      const until = h.throttled(key, 'ServiceUnavailable', undefined, half);
      expect(until).toBe(clock.now() + 1000);
      expect(h.admit(key, undefined, clock.now())).toEqual({ go: false, hold: false, until });
      expect(h.list()[0]).toMatchObject({ state: 'degraded', slowUntil: until });
      clock.advance(1000);
      expect(h.delivered(key)).toBeUndefined();
      expect(h.list()[0]).toMatchObject({ state: 'healthy', slowUntil: null });
      // The provider said how long: at once.
      expect(h.throttled(key, 'QUOTA_EXCEEDED', 60_000, half)).toBe(clock.now() + 60_000);
    });

    test('a token backoff holds only that token', () => {
      const { clock, health: h } = health();
      h.tokenBackoff('device-1|url', clock.now() + 30_000);
      expect(h.admit(key, 'device-1|url', clock.now())).toEqual({ go: false, hold: false, until: clock.now() + 30_000 });
      expect(h.admit(key, 'device-2|url', clock.now())).toEqual({ go: true, probe: false });
      clock.advance(30_000);
      expect(h.admit(key, 'device-1|url', clock.now())).toEqual({ go: true, probe: false });
    });
  });
}
