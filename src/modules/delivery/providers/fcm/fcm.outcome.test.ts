import { describe, expect, test } from 'bun:test';
import { fcmError } from '../../../../test-support/fcm-standin';
import { fcmOutcome, type FcmResponse } from './fcm.outcome';

const err = (status: number, rpc?: string, code?: string, message?: string, violations?: { field: string; description: string }[]) => ({
  status,
  body: fcmError(status, rpc, code, message, violations),
});
const dataViolation = { field: 'message.data[0].value', description: "Invalid value at 'message.data[0].value' (TYPE_STRING), 1" };

const cases: [string, FcmResponse, ReturnType<typeof fcmOutcome>][] = [
  ['200 with the message name', { status: 200, body: { name: 'projects/p/messages/1' } }, { kind: 'delivered', providerId: 'projects/p/messages/1' }],
  ['404 UNREGISTERED', err(404, 'NOT_FOUND', 'UNREGISTERED'), { kind: 'drop-token', reason: 'UNREGISTERED: NOT_FOUND' }],
  ['403 SENDER_ID_MISMATCH', err(403, 'PERMISSION_DENIED', 'SENDER_ID_MISMATCH'), { kind: 'drop-token', reason: 'SENDER_ID_MISMATCH: PERMISSION_DENIED' }],
  ['429 QUOTA_EXCEEDED without Retry-After', err(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED'), { kind: 'retry', reason: 'QUOTA_EXCEEDED: RESOURCE_EXHAUSTED', afterMs: 60_000, scope: 'channel' }],
  ['429 with a short Retry-After', { ...err(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED'), retryAfterMs: 5000 }, { kind: 'retry', reason: 'QUOTA_EXCEEDED: RESOURCE_EXHAUSTED', afterMs: 60_000, scope: 'channel' }],
  ['429 with a long Retry-After', { ...err(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED'), retryAfterMs: 300_000 }, { kind: 'retry', reason: 'QUOTA_EXCEEDED: RESOURCE_EXHAUSTED', afterMs: 300_000, scope: 'channel' }],
  ['429 QUOTA_EXCEEDED for one device', err(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED', 'Device message rate exceeded.'), { kind: 'retry', reason: 'QUOTA_EXCEEDED: RESOURCE_EXHAUSTED', afterMs: 60_000, scope: 'token' }],
  ['503 UNAVAILABLE', { ...err(503, 'UNAVAILABLE', 'UNAVAILABLE'), retryAfterMs: 10_000 }, { kind: 'retry', reason: 'UNAVAILABLE', afterMs: 10_000, scope: 'channel' }],
  ['500 INTERNAL', err(500, 'INTERNAL', 'INTERNAL'), { kind: 'retry', reason: 'INTERNAL', afterMs: undefined, scope: 'channel' }],
  ['502 without a body', { status: 502 }, { kind: 'retry', reason: 'HTTP 502', afterMs: undefined, scope: 'channel' }],
  ['401 THIRD_PARTY_AUTH_ERROR', err(401, 'UNAUTHENTICATED', 'THIRD_PARTY_AUTH_ERROR'), { kind: 'pause-channel', reason: 'THIRD_PARTY_AUTH_ERROR: UNAUTHENTICATED' }],
  ['401 UNAUTHENTICATED', err(401, 'UNAUTHENTICATED'), { kind: 'pause-channel', reason: 'UNAUTHENTICATED' }],
  ['403 PERMISSION_DENIED', err(403, 'PERMISSION_DENIED'), { kind: 'pause-channel', reason: 'PERMISSION_DENIED' }],
  ['400 INVALID_ARGUMENT is not retried', err(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT'), { kind: 'failed', reason: 'INVALID_ARGUMENT' }],
  [
    '400 INVALID_ARGUMENT about the message keeps the field and its description',
    err(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [dataViolation]),
    { kind: 'failed', reason: "INVALID_ARGUMENT: message.data[0].value: Invalid value at 'message.data[0].value' (TYPE_STRING), 1" },
  ],
  [
    '400 INVALID_ARGUMENT naming message.token drops the token',
    err(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [{ field: 'message.token', description: 'Invalid registration token' }]),
    { kind: 'drop-token', reason: 'INVALID_ARGUMENT: invalid registration token' },
  ],
];

describe('FCM outcomes', () => {
  for (const [name, response, outcome] of cases) {
    test(`${name} → ${outcome.kind}`, () => {
      expect(fcmOutcome(response)).toEqual(outcome);
    });
  }
});

describe('FCM reasons keep codes only', () => {
  test("the provider's free text is never kept, and a code outside the safe alphabet is not a code", () => {
    const body = { error: { status: 'INVALID_ARGUMENT', message: 'secret internal page <html>…', details: [{ errorCode: '<script>' }] } };
    expect(fcmOutcome({ status: 400, body })).toEqual({ kind: 'failed', reason: 'INVALID_ARGUMENT' });
    expect(fcmOutcome({ status: 400, body: { error: { status: 'x'.repeat(500) } } })).toEqual({ kind: 'failed', reason: 'HTTP 400' });
  });

  test('a field violation is kept bounded and in safe characters; a field that is not a field path is not kept', () => {
    const violation = (field: string, description: string) =>
      fcmOutcome(err(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', undefined, [{ field, description }])) as { reason: string };
    const markup = violation('message.android.ttl', `Invalid value "<script>alert(1)</script>" ${'x'.repeat(300)}`);
    expect(markup.reason).toStartWith("INVALID_ARGUMENT: message.android.ttl: Invalid value ??script?alert(1)?/script?? xxx");
    expect(markup.reason.length).toBe('INVALID_ARGUMENT: message.android.ttl: '.length + 100);
    expect(violation('message.data[0].value<img>', 'x').reason).toBe('INVALID_ARGUMENT');
    expect(violation(`message.${'a'.repeat(120)}`, 'x').reason).toBe('INVALID_ARGUMENT');
  });
});
