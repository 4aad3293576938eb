import { describe, expect, test } from 'bun:test';
import { recordedRequest } from './payloads';

describe('recorded requests', () => {
  test('are read whether the API sent them parsed or as text', () => {
    const request = { method: 'POST', url: 'https://x/3/device/t', headers: { 'apns-push-type': 'alert' }, body: { aps: {} } };
    expect(recordedRequest(request)).toEqual(request);
    expect(recordedRequest(JSON.stringify(request))).toEqual(request);
    expect(recordedRequest('not json')).toBeUndefined();
  });
});
