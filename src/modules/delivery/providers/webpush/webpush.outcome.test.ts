import { describe, expect, test } from 'bun:test';
import { webPushOutcome, type WebPushResponse } from './webpush.outcome';

const cases: [string, WebPushResponse, ReturnType<typeof webPushOutcome>][] = [
  ['201 Created', { status: 201 }, { kind: 'delivered' }],
  ['200 from a distributor that answers OK', { status: 200, text: 'ok' }, { kind: 'delivered' }],
  ['410 Gone with Apple\'s reason', { status: 410, text: '{"reason":"Unregistered"}' }, { kind: 'drop-token', reason: 'HTTP 410: Unregistered' }],
  ['404 Not Found', { status: 404 }, { kind: 'drop-token', reason: 'HTTP 404' }],
  ['413 too large', { status: 413, text: '{"reason":"PayloadTooLarge"}' }, { kind: 'failed', reason: 'HTTP 413: PayloadTooLarge (payload too large)' }],
  ['429 with Retry-After', { status: 429, retryAfterMs: 5000 }, { kind: 'retry', reason: 'HTTP 429', afterMs: 5000, scope: 'token' }],
  ['429 without Retry-After waits a minute', { status: 429 }, { kind: 'retry', reason: 'HTTP 429', afterMs: 60_000, scope: 'token' }],
  ['503 with Retry-After', { status: 503, retryAfterMs: 2000 }, { kind: 'retry', reason: 'HTTP 503', afterMs: 2000, scope: 'channel' }],
  ['500 without', { status: 500 }, { kind: 'retry', reason: 'HTTP 500', afterMs: undefined, scope: 'channel' }],
  ['403 BadJwtToken (Apple)', { status: 403, text: '{"reason":"BadJwtToken"}' }, { kind: 'failed', reason: 'HTTP 403: BadJwtToken' }],
  [
    '400 from Mozilla autopush, its message kept',
    { status: 400, text: '{"code":400,"errno":110,"error":"Bad Request","message":"Invalid Authentication header."}' },
    { kind: 'failed', reason: 'HTTP 400: Invalid Authentication header.' },
  ],
  ['400 with an FCM-shaped error', { status: 400, text: '{"error":{"code":400,"message":"Invalid TTL"}}' }, { kind: 'failed', reason: 'HTTP 400: Invalid TTL' }],
  ['400 in plain text', { status: 400, text: 'invalid JWT provided\n' }, { kind: 'failed', reason: 'HTTP 400: invalid JWT provided' }],
  ['302 is never followed', { status: 302 }, { kind: 'failed', reason: 'HTTP 302 (redirect not followed)' }],
];

describe('Web Push outcomes', () => {
  for (const [name, response, outcome] of cases) {
    test(`${name} → ${outcome.kind}`, () => {
      expect(webPushOutcome(response)).toEqual(outcome);
    });
  }

  test("markup in an answer is reduced to safe characters and 100 of them", () => {
    const outcome = webPushOutcome({ status: 400, text: `<script>alert(1)</script>${'x'.repeat(500)}` }) as { reason: string };
    expect(outcome.reason).toStartWith('HTTP 400: ?script?alert(1)?/script?xxx');
    expect(outcome.reason.length).toBe('HTTP 400: '.length + 100);
  });
});
