import { expect, test } from 'bun:test';
import { connectionReason, MAX_REASON_LENGTH, reasonCode } from './provider-reason';

test('only short codes of a safe alphabet are kept from a provider reply', () => {
  for (const code of ['BadDeviceToken', 'UNREGISTERED', 'invalid_grant', 'x.y-z']) expect(reasonCode(code)).toBe(code);
  for (const text of ['<html><body>internal admin page</body></html>', 'a b', 'Bad\r\nHeader', '', 'x'.repeat(MAX_REASON_LENGTH + 1), 42, { reason: 'x' }, null])
    expect(reasonCode(text)).toBeUndefined();
});

test('our own connection errors are bounded and printable', () => {
  const reason = connectionReason(`refused\n${'x'.repeat(500)}`);
  expect(reason).toStartWith('connection lost: refused?');
  expect(reason.length).toBeLessThanOrEqual('connection lost: '.length + 120);
});
