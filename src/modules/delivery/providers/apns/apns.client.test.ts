import { afterEach, describe, expect, test } from 'bun:test';
import { until } from '../../../../test-support/eventually';
import { FakeClock } from '../../../../lib/clock';
import { silentLogger } from '../../../../lib/logger';
import { apnsToken, startApnsStandin, type ApnsStandin } from '../../../../test-support/apns-standin';
import { apnsKey } from '../../../../test-support/delivery-fixtures';
import type { ApnsCredentials } from '../../../apps/credentials';
import type { PushRequest } from '../transport';
import { ApnsClient, apnsOrigin } from './apns.client';

/** Checked every 5 ms, as HTTP/2 frames come quickly. */
const FAST = { intervalMs: 5 };

let apns: ApnsStandin;
let client: ApnsClient;
afterEach(async () => {
  await client?.close();
  await apns?.close();
});

const clock = new FakeClock();

async function setup(options: { maxConcurrentStreams?: number; pingIntervalMs?: number; streamsPerConnection?: number; maxConnections?: number } = {}) {
  const key = apnsKey();
  apns = await startApnsStandin({ keys: [key], clock, maxConcurrentStreams: options.maxConcurrentStreams });
  const { pingIntervalMs, streamsPerConnection, maxConnections } = options;
  // The stand-in listens on 127.0.0.1.
  client = new ApnsClient({ clock, logger: silentLogger, pingIntervalMs, streamsPerConnection, maxConnections, outbound: { allowPrivate: true } });
  const creds: ApnsCredentials = { bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, environment: 'production', endpoint: apns.url, ca: apns.ca };
  const request = (): PushRequest => ({
    appId: 'a',
    provider: 'apns',
    url: `${apns.url}/3/device/${apnsToken()}`,
    headers: { 'apns-push-type': 'alert', 'apns-topic': 'com.x' },
    body: '{"aps":{"alert":"hi"}}',
    apns: creds,
  });
  return { creds, request };
}

describe('APNs HTTP/2 client', () => {
  test('without allow_private_endpoints a loopback endpoint is refused before connecting: the channel pauses, nothing is sent', async () => {
    const { request } = await setup();
    await client.close();
    client = new ApnsClient({ clock, logger: silentLogger });
    const outcome = await client.send(request());
    expect(outcome).toEqual({
      kind: 'pause-channel',
      reason: 'APNs endpoint must not be a loopback address; only public addresses are allowed unless [security] allow_private_endpoints = true',
    });
    expect(apns.stats.connections).toBe(0);
  });

  test('many requests share one long-lived connection', async () => {
    const { request } = await setup();
    const outcomes = await Promise.all(Array.from({ length: 200 }, () => client.send(request())));
    expect(outcomes.every((o) => o.kind === 'delivered')).toBe(true);
    await Promise.all(Array.from({ length: 20 }, () => client.send(request())));
    expect(apns.stats.connections).toBe(1);
    expect(client.connectionsOpened).toBe(1);
  });

  test("never opens more streams than the server's SETTINGS allow, also after the server lowers the limit", async () => {
    const { request } = await setup({ maxConcurrentStreams: 8 });
    let release: () => void = () => {};
    let gate = new Promise<void>((r) => (release = r));
    apns.respond(() => gate.then(() => undefined));
    const first = Promise.all(Array.from({ length: 40 }, () => client.send(request())));
    await until('8 streams are open', () => apns.stats.activeStreams === 8, FAST);
    release();
    expect((await first).every((o) => o.kind === 'delivered')).toBe(true);
    expect(apns.stats.maxActiveStreams).toBe(8);

    apns.setMaxConcurrentStreams(3);
    gate = new Promise<void>((r) => (release = r));
    await until('the connection takes the limit of 3', () => client.connectionStates()[0]?.limit === 3, FAST);
    apns.stats.maxActiveStreams = 0;
    const second = Promise.all(Array.from({ length: 30 }, () => client.send(request())));
    await until('3 streams are open', () => apns.stats.activeStreams === 3, FAST);
    release();
    expect((await second).every((o) => o.kind === 'delivered')).toBe(true);
    expect(apns.stats.maxActiveStreams).toBe(3);
    expect(apns.requests).toHaveLength(70);
  });

  test('a burst beyond what one connection carries spreads over a few connections, never more than allowed', async () => {
    const { request } = await setup({ streamsPerConnection: 5, maxConnections: 3 });
    expect((await client.send(request())).kind).toBe('delivered');
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    apns.respond(() => gate.then(() => undefined));
    const burst = Promise.all(Array.from({ length: 40 }, () => client.send(request())));
    await until('15 streams are open', () => apns.stats.activeStreams === 15, FAST);
    release();
    expect((await burst).every((o) => o.kind === 'delivered')).toBe(true);
    expect(apns.stats.connections).toBe(3);
    expect(apns.stats.maxActiveStreams).toBe(15);
  });

  test('a server limit below our own share per connection is respected, not worked around with more connections', async () => {
    const { request } = await setup({ maxConcurrentStreams: 4, streamsPerConnection: 5, maxConnections: 3 });
    expect((await client.send(request())).kind).toBe('delivered');
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    apns.respond(() => gate.then(() => undefined));
    const burst = Promise.all(Array.from({ length: 40 }, () => client.send(request())));
    await until('4 streams are open', () => apns.stats.activeStreams === 4, FAST);
    release();
    expect((await burst).every((o) => o.kind === 'delivered')).toBe(true);
    expect(apns.stats.connections).toBe(1);
    expect(apns.stats.maxActiveStreams).toBe(4);
  });

  test('after GOAWAY the next requests go over a new connection and succeed', async () => {
    const { request } = await setup();
    expect((await client.send(request())).kind).toBe('delivered');
    apns.goaway();
    await until('the connection is closed', () => client.connectionStates()[0]?.closed === true, FAST);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => client.send(request())));
    expect(outcomes.map((o) => o.kind)).toEqual(Array(10).fill('delivered'));
    expect(apns.stats.connections).toBe(2);
  });

  test('GOAWAY: the streams in flight are answered, later requests go on a new connection; each push arrives once', async () => {
    const { request } = await setup();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let waiting = 0;
    apns.respond(() => (waiting++, gate.then(() => undefined)));
    const first = Array.from({ length: 10 }, () => client.send(request()));
    // Past the stand-in's checks (where faults are drawn), waiting for their answers.
    await until('10 sends wait', () => waiting === 10, FAST);
    apns.respond(undefined);
    apns.faults.set({ rate: 1, kinds: ['goaway'], limit: 1 });
    expect((await client.send(request())).kind).toBe('delivered');
    await until('a connection is closed', () => client.connectionStates().some((c) => c.closed), FAST);
    const later = Array.from({ length: 10 }, () => client.send(request()));
    release();
    const outcomes = await Promise.all([...first, ...later]);
    expect(outcomes.map((o) => o.kind)).toEqual(Array(20).fill('delivered'));
    expect(apns.faults.produced.goaway).toBe(1);
    expect(new Set(apns.requests.map((r) => r.token)).size).toBe(21);
    expect(apns.requests).toHaveLength(21);
    expect(apns.stats.connections).toBe(2);
  });

  test('GOAWAY on a tenth of the requests: streams above each last-stream-id go again on another connection, every push arrives exactly once', async () => {
    const { request } = await setup();
    apns.faults.set({ rate: 0.1, kinds: ['goaway'] });
    let delivered = 0;
    apns.onDelivered(() => delivered++);
    const outcomes = await Promise.all(Array.from({ length: 1000 }, () => client.send(request())));
    expect(outcomes.every((o) => o.kind === 'delivered')).toBe(true);
    expect(apns.faults.produced.goaway).toBeGreaterThan(10);
    expect(apns.stats.connections).toBeGreaterThan(1);
    expect(delivered).toBe(1000);
  });

  test('a provider that is gone gives unreachable outcomes at once; it is reachable again after it comes back', async () => {
    const { request } = await setup();
    expect((await client.send(request())).kind).toBe('delivered');
    await apns.goAway();
    const outcome = await client.send(request());
    expect(outcome).toMatchObject({ kind: 'unreachable' });
    expect(outcome.kind === 'unreachable' && outcome.reason).toStartWith('not sent');
    await apns.comeBack();
    expect((await client.send(request())).kind).toBe('delivered');
  });

  test('a connection that dies mid-request gives an unreachable outcome: unknown, so it goes again', async () => {
    const { request } = await setup();
    apns.respond(() => new Promise(() => {}));
    const pending = client.send(request());
    await until('1 stream is open', () => apns.stats.activeStreams === 1, FAST);
    await apns.close();
    const outcome = await pending;
    expect(outcome.kind).toBe('unreachable');
    expect(outcome.kind === 'unreachable' && outcome.reason).toStartWith('outcome unknown');
  });

  test('keeps an idle connection alive with PINGs', async () => {
    const { request } = await setup({ pingIntervalMs: 20 });
    await client.send(request());
    await until('two PINGs arrived', () => apns.stats.pings >= 2, FAST);
    expect(apns.stats.connections).toBe(1);
  });

  test("the host is Apple's production or sandbox by the device's environment, unless the credentials override that host", () => {
    expect(apnsOrigin(undefined, 'production')).toBe('https://api.push.apple.com');
    expect(apnsOrigin({}, 'sandbox')).toBe('https://api.sandbox.push.apple.com');
    // Each override replaces its own environment's host only.
    expect(apnsOrigin({ endpoint: 'https://127.0.0.1:9443/' }, 'production')).toBe('https://127.0.0.1:9443');
    expect(apnsOrigin({ endpoint: 'https://127.0.0.1:9443/' }, 'sandbox')).toBe('https://api.sandbox.push.apple.com');
    expect(apnsOrigin({ endpoint: 'https://127.0.0.1:9443', sandboxEndpoint: 'https://127.0.0.1:9444/' }, 'sandbox')).toBe('https://127.0.0.1:9444');
  });
});
