import { describe, expect, test } from 'bun:test';
import { apnsOutcome, type ApnsResponse } from './apns.outcome';

const cases: [ApnsResponse, ReturnType<typeof apnsOutcome>][] = [
  [{ status: 200, apnsId: 'A-1' }, { kind: 'delivered', providerId: 'A-1' }],
  [{ status: 410, reason: 'Unregistered' }, { kind: 'drop-token', reason: 'Unregistered' }],
  [{ status: 410, reason: 'ExpiredToken' }, { kind: 'drop-token', reason: 'ExpiredToken' }],
  [{ status: 400, reason: 'BadDeviceToken' }, { kind: 'drop-token', reason: 'BadDeviceToken' }],
  [{ status: 400, reason: 'DeviceTokenNotForTopic' }, { kind: 'drop-token', reason: 'DeviceTokenNotForTopic' }],
  [{ status: 403, reason: 'InvalidProviderToken' }, { kind: 'pause-channel', reason: 'InvalidProviderToken' }],
  [{ status: 403, reason: 'MissingProviderToken' }, { kind: 'pause-channel', reason: 'MissingProviderToken' }],
  [{ status: 400, reason: 'BadTopic' }, { kind: 'pause-channel', reason: 'BadTopic' }],
  [{ status: 400, reason: 'TopicDisallowed' }, { kind: 'pause-channel', reason: 'TopicDisallowed' }],
  [{ status: 403, reason: 'ExpiredProviderToken' }, { kind: 'retry', reason: 'ExpiredProviderToken', afterMs: undefined }],
  [{ status: 429, reason: 'TooManyRequests', retryAfterMs: 5000 }, { kind: 'retry', reason: 'TooManyRequests', afterMs: 5000, scope: 'token' }],
  [{ status: 500, reason: 'InternalServerError' }, { kind: 'retry', reason: 'InternalServerError', afterMs: undefined, scope: 'channel' }],
  [{ status: 503, reason: 'ServiceUnavailable' }, { kind: 'retry', reason: 'ServiceUnavailable', afterMs: undefined, scope: 'channel' }],
  [{ status: 502 }, { kind: 'retry', reason: 'HTTP 502', afterMs: undefined, scope: 'channel' }],
  [{ status: 503, retryAfterMs: 2000 }, { kind: 'retry', reason: 'HTTP 503', afterMs: 2000, scope: 'channel' }],
  [{ status: 429, reason: 'TooManyProviderTokenUpdates' }, { kind: 'retry', reason: 'TooManyProviderTokenUpdates', afterMs: undefined, scope: 'channel' }],
  [{ status: 413, reason: 'PayloadTooLarge' }, { kind: 'failed', reason: 'PayloadTooLarge' }],
  [{ status: 400, reason: 'BadExpirationDate' }, { kind: 'failed', reason: 'BadExpirationDate' }],
  [{ status: 405, reason: 'BadMethod' }, { kind: 'failed', reason: 'BadMethod' }],
  [{ status: 410 }, { kind: 'drop-token', reason: 'HTTP 410' }],
  [{ status: 403, reason: 'SomethingNew' }, { kind: 'pause-channel', reason: 'SomethingNew' }],
];

describe('APNs outcomes', () => {
  for (const [response, outcome] of cases) {
    test(`${response.status} ${response.reason ?? '(no reason)'} → ${outcome.kind}`, () => {
      expect(apnsOutcome(response)).toEqual(outcome);
    });
  }
});
