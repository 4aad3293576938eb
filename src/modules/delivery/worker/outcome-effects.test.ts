import { describe, expect, test } from 'bun:test';
import { DEFAULT_BACKOFF } from '../../../queue/backoff';
import type { AppChannels, ClaimedDelivery } from './delivery.routing';
import { sentDecision, unsentDecision, withEffects, type SendRoute, type Sent } from './outcome-effects';

// The decision alone: no database, no clock, no transport.

const row: ClaimedDelivery = {
  id: 7,
  appId: 'demo',
  messageId: 3,
  deviceId: 'dev_1',
  activityId: 'la_1',
  attempts: 2,
  nextAttemptAt: 1000,
  kind: 'la_update',
  content: '{}',
  sentBody: null,
  platform: 'ios',
  endUserId: 'user-1',
  tokenId: 11,
  tokenKind: 'apns_activity',
  tokenValue: 'abc',
  tokenSecret: null,
  tokenDeviceId: 'dev_1',
  tokenActivityId: 'la_1',
  environment: 'production',
  tokenState: 'active',
  invalidReason: null,
};
const route: SendRoute = { action: 'send', transport: 'apns', environment: 'production', request: { appId: 'demo', provider: 'apns', url: 'https://api.push.apple.com/3/device/abc', headers: {}, body: '{}' } };
const app: AppChannels = { apnsSealed: 'sealed-1', fcmSealed: null, apnsPausedReason: null, fcmPausedReason: null };
const sent: Sent = { id: 7, attempts: 3, nextAttemptAt: 1000, provider: 'apns', providerId: null, sentPayload: '{"method":"POST"}' };
const policy = { now: 50_000, random: () => 0.5, backoff: DEFAULT_BACKOFF };

describe('outcome → effects', () => {
  test('delivered: nothing waits, nothing else changes', () => {
    const d = sentDecision({ row, route, app, sent }, { kind: 'delivered', providerId: 'apns-id' }, policy);
    expect(d).toMatchObject({ provider: 'apns', label: 'delivered', result: { status: 'delivered', holdKind: null, providerId: 'apns-id', reason: null } });
    expect(withEffects(d.result, row)).toMatchObject({ supersedeIfStale: false, recordAttempt: false });
    expect(withEffects(d.result, row).events).toBeUndefined();
  });

  test('a retry waits with backoff, keeps its attempt and is checked against newer updates; the last one fails and tells delivery.failed', () => {
    const retry = sentDecision({ row, route, app, sent }, { kind: 'retry', reason: 'TooManyRequests', scope: 'token' }, policy);
    expect(retry.result).toMatchObject({ status: 'pending', holdKind: null, nextAttemptAt: 50_000 + 4000 });
    expect(retry.tokenBackoffUntil).toBe(54_000);
    expect(withEffects(retry.result, row)).toMatchObject({ supersedeIfStale: true, recordAttempt: true });

    const last = sentDecision({ row, route, app, sent: { ...sent, attempts: 10 } }, { kind: 'retry', reason: 'TooManyRequests' }, policy);
    expect(last.result).toMatchObject({ status: 'failed', reason: 'gave up after 10 attempts: TooManyRequests' });
    expect(withEffects(last.result, row).events).toEqual([
      {
        appId: 'demo',
        type: 'delivery.failed',
        data: { deliveryId: 7, kind: 'la_update', activityId: 'la_1', deviceId: 'dev_1', endUserId: 'user-1', platform: 'ios', reason: 'gave up after 10 attempts: TooManyRequests', attempts: 10 },
      },
    ]);
  });

  test('a refused token is dropped and invalidated, with device.token_invalidated for when the invalidation holds', () => {
    const d = sentDecision({ row, route, app, sent }, { kind: 'drop-token', reason: 'Unregistered', since: 40_000 }, policy);
    expect(d.result).toMatchObject({ status: 'dropped', reason: 'Unregistered', invalidateToken: { tokenId: 11, reason: 'Unregistered', since: 40_000 } });
    expect(withEffects(d.result, row).invalidateToken!.event).toEqual({
      appId: 'demo',
      type: 'device.token_invalidated',
      data: { deviceId: 'dev_1', endUserId: 'user-1', tokenKind: 'apns_activity', activityId: 'la_1', reason: 'Unregistered' },
    });
  });

  test('refused credentials pause the channel (only those sealed) and hold the delivery without spending its attempt', () => {
    const d = sentDecision({ row, route, app, sent }, { kind: 'pause-channel', reason: 'InvalidProviderToken' }, policy);
    expect(d.label).toBe('paused');
    expect(d.result).toMatchObject({ status: 'held', holdKind: 'apns_paused', reason: 'apns channel paused', attempts: 2 });
    expect(d.result.pauseChannel).toEqual({ appId: 'demo', provider: 'apns', reason: 'InvalidProviderToken', sealed: 'sealed-1' });
  });

  test('routing without sending: a token hold, a parked channel, a drop', () => {
    expect(unsentDecision(row, { action: 'hold' })).toMatchObject({
      label: 'held',
      result: { status: 'held', holdKind: 'token', reason: 'waiting for the activity push token', holdFor: { activityId: 'la_1', deviceId: 'dev_1' } },
    });
    expect(unsentDecision(row, { action: 'park', provider: 'fcm' })).toMatchObject({ provider: 'fcm', result: { status: 'held', holdKind: 'fcm_paused', reason: 'fcm channel paused' } });
    const dropped = unsentDecision(row, { action: 'drop', reason: 'device removed' });
    expect(dropped).toMatchObject({ provider: 'none', label: 'dropped', result: { status: 'dropped', holdKind: null } });
    expect(withEffects(dropped.result, row).supersedeIfStale).toBe(false);
  });
});
