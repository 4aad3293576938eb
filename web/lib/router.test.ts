import { describe, expect, test } from 'bun:test';
import { match, searchParams } from './router';

describe('console paths', () => {
  test('patterns match whole paths and decode their parameters', () => {
    expect(match('/apps/:appId/activities/:activityId', '/apps/demo/activities/la_1?x=1')).toEqual({ appId: 'demo', activityId: 'la_1' });
    expect(match('/apps/:appId', '/apps/my%20app')).toEqual({ appId: 'my app' });
    expect(match('/apps/:appId', '/apps/demo/devices')).toBeNull();
    expect(match('/', '/')).toEqual({});
    expect(searchParams('/apps/demo/activities?state=Active').get('state')).toBe('Active');
  });
});
