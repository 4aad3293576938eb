import { describe, expect, test } from 'bun:test';
import { apnsBroadcastOutcome, FEATURE_OFF_HELP } from './apns.broadcast-outcome';

describe('what a broadcast or channel-management answer means', () => {
  test.each([
    [201, undefined, { kind: 'delivered' }],
    [204, undefined, { kind: 'delivered' }],
    [400, 'ChannelNotRegistered', { kind: 'channel-gone', reason: 'ChannelNotRegistered' }],
    [400, 'BadChannelId', { kind: 'channel-gone', reason: 'BadChannelId' }],
    [400, 'FeatureNotEnabled', { kind: 'feature-off', reason: FEATURE_OFF_HELP }],
    [400, 'CannotCreateChannelConfig', { kind: 'channel-limit', reason: 'CannotCreateChannelConfig' }],
    [400, 'MissingChannelId', { kind: 'failed', reason: 'MissingChannelId' }],
    [400, 'BadExpirationDate', { kind: 'failed', reason: 'BadExpirationDate' }],
    [400, 'BadPriority', { kind: 'failed', reason: 'BadPriority' }],
    [400, 'MissingPushType', { kind: 'failed', reason: 'MissingPushType' }],
    [400, 'InvalidPushType', { kind: 'failed', reason: 'InvalidPushType' }],
    [400, 'BadRequestParams', { kind: 'failed', reason: 'BadRequestParams' }],
    [400, 'BadRequestPayload', { kind: 'failed', reason: 'BadRequestPayload' }],
    [400, 'PayloadEmpty', { kind: 'failed', reason: 'PayloadEmpty' }],
    [400, 'BadMessageId', { kind: 'failed', reason: 'BadMessageId' }],
    [400, 'TopicDisallowed', { kind: 'pause-channel', reason: 'TopicDisallowed' }],
    [403, 'TopicMismatch', { kind: 'pause-channel', reason: 'TopicMismatch' }],
    [403, 'MissingProviderToken', { kind: 'pause-channel', reason: 'MissingProviderToken' }],
    [403, 'ExpiredProviderToken', { kind: 'retry', reason: 'ExpiredProviderToken' }],
    [404, 'BadPath', { kind: 'failed', reason: 'BadPath' }],
    [405, 'MethodNotAllowed', { kind: 'failed', reason: 'MethodNotAllowed' }],
    [413, 'PayloadTooLarge', { kind: 'failed', reason: 'PayloadTooLarge' }],
    [429, 'TooManyProviderTokenUpdates', { kind: 'retry', reason: 'TooManyProviderTokenUpdates', scope: 'channel' }],
    [500, 'InternalServerError', { kind: 'retry', reason: 'InternalServerError', scope: 'channel' }],
    [503, 'Shutdown', { kind: 'retry', reason: 'Shutdown', scope: 'channel' }],
    // No device token behind a broadcast: a token reason is not a broadcast's answer.
    [410, 'Unregistered', { kind: 'failed', reason: 'Unregistered' }],
  ] as const)('%i %s', (status, reason, expected) => {
    expect(apnsBroadcastOutcome({ status, reason })).toMatchObject(expected);
  });
});
