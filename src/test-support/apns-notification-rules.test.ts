import { afterEach, expect, test } from 'bun:test';
import { FakeClock } from '../lib/clock';
import { silentLogger } from '../lib/logger';
import { ApnsClient } from '../modules/delivery/providers/apns/apns.client';
import type { ApnsCredentials } from '../modules/apps/credentials';
import { apnsToken, startApnsStandin, type ApnsStandin } from './apns-standin';
import { apnsKey } from './delivery-fixtures';

let apns: ApnsStandin;
let client: ApnsClient | undefined;
afterEach(async () => {
  await client?.close();
  await apns?.close();
});

const clock = new FakeClock();

/** A sender of alert and background pushes to the stand-in, answering the reason it gave (undefined: accepted). */
async function sender() {
  const key = apnsKey();
  apns = await startApnsStandin({ keys: [key], clock });
  const creds: ApnsCredentials = { bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, environment: 'production' };
  client = new ApnsClient({ clock, logger: silentLogger, outbound: { allowPrivate: true } });
  return async (headers: Record<string, string>, body: unknown): Promise<string | undefined> => {
    const outcome = await client!.send({
      appId: 'a',
      provider: 'apns',
      url: `${apns.url}/3/device/${apnsToken()}`,
      headers: { 'apns-topic': 'com.x', ...headers },
      body: JSON.stringify(body),
      apns: { ...creds, endpoint: apns.url, ca: apns.ca },
    });
    return outcome.kind === 'delivered' ? undefined : (outcome as { reason?: string }).reason;
  };
}

const alert = { 'apns-push-type': 'alert', 'apns-priority': '10' };
const background = { 'apns-push-type': 'background', 'apns-priority': '5' };
const silent = { aps: { 'content-available': 1 }, sync: 'inbox' };

test('a collapse id over 64 bytes is refused with BadCollapseId, 64 bytes pass', async () => {
  const send = await sender();
  expect(await send({ ...alert, 'apns-collapse-id': 'x'.repeat(65) }, { aps: { alert: 'hi' } })).toBe('BadCollapseId');
  expect(await send({ ...alert, 'apns-collapse-id': 'é'.repeat(33) }, { aps: { alert: 'hi' } })).toBe('BadCollapseId');
  expect(await send({ ...alert, 'apns-collapse-id': 'x'.repeat(64) }, { aps: { alert: 'hi' } })).toBeUndefined();
});

test('an expiration that is not Unix seconds is refused with BadExpirationDate; 0 passes', async () => {
  const send = await sender();
  expect(await send({ ...alert, 'apns-expiration': 'tomorrow' }, { aps: { alert: 'hi' } })).toBe('BadExpirationDate');
  expect(await send({ ...alert, 'apns-expiration': '0' }, { aps: { alert: 'hi' } })).toBeUndefined();
});

test('a background push goes at priority 5 with content-available and nothing that alerts, sounds or badges', async () => {
  const send = await sender();
  expect(await send(background, silent)).toBeUndefined();
  expect(await send({ ...background, 'apns-priority': '10' }, silent)).toBe('BadPriority');
  expect(await send({ 'apns-push-type': 'background' }, silent)).toBe('BadPriority');
  expect(await send(background, { aps: {} })).toBe('StandinBackgroundWithoutContentAvailable');
  for (const key of ['alert', 'sound', 'badge']) {
    expect(await send(background, { aps: { 'content-available': 1, [key]: key === 'badge' ? 1 : 'x' } })).toBe('StandinBackgroundNotSilent');
  }
});

test('interruption levels are the four Apple names; relevance scores 0 to 1', async () => {
  const send = await sender();
  for (const level of ['passive', 'active', 'time-sensitive', 'critical']) expect(await send(alert, { aps: { alert: 'hi', 'interruption-level': level } })).toBeUndefined();
  expect(await send(alert, { aps: { alert: 'hi', 'interruption-level': 'timeSensitive' } })).toBe('StandinBadInterruptionLevel');
  expect(await send(alert, { aps: { alert: 'hi', 'relevance-score': 1.5 } })).toBe('StandinBadRelevanceScore');
  expect(await send(alert, { aps: { alert: 'hi', 'relevance-score': 0.5 } })).toBeUndefined();
});

test('a payload over 4096 bytes is refused with 413 PayloadTooLarge, data keys included', async () => {
  const send = await sender();
  expect(await send(alert, { aps: { alert: 'hi' }, url: 'x'.repeat(4100) })).toBe('PayloadTooLarge');
  expect(await send(alert, { aps: { alert: 'hi' }, url: 'x'.repeat(4000) })).toBeUndefined();
});

test('widgets and controls pushes go to their .push-type topic with aps.content-changed true and nothing else', async () => {
  const send = await sender();
  const reload = { aps: { 'content-changed': true } };
  expect(await send({ 'apns-push-type': 'widgets', 'apns-topic': 'com.x.push-type.widgets' }, reload)).toBeUndefined();
  expect(await send({ 'apns-push-type': 'controls', 'apns-topic': 'com.x.push-type.controls', 'apns-priority': '10', 'apns-expiration': '0' }, reload)).toBeUndefined();
  expect(await send({ 'apns-push-type': 'widgets' }, reload)).toBe('BadTopic');
  expect(await send({ 'apns-push-type': 'controls', 'apns-topic': 'com.x.push-type.widgets' }, reload)).toBe('BadTopic');
  expect(await send({ 'apns-push-type': 'widgets', 'apns-topic': 'com.x.push-type.widgets' }, { aps: {} })).toBe('StandinReloadWithoutContentChanged');
  expect(await send({ 'apns-push-type': 'widgets', 'apns-topic': 'com.x.push-type.widgets' }, { aps: { 'content-changed': 1 } })).toBe('StandinReloadWithoutContentChanged');
  expect(await send({ 'apns-push-type': 'controls', 'apns-topic': 'com.x.push-type.controls' }, { aps: { 'content-changed': true, alert: 'hi' } })).toBe('StandinReloadNotOnlyContentChanged');
});
