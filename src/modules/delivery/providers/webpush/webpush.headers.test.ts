import { describe, expect, test } from 'bun:test';
import { DEFAULT_TTL_SECONDS, pushHeaders, topicFor, urgencyFor } from './webpush.headers';

describe('Urgency', () => {
  test.each([
    [{}, 'high'],
    [{ priority: 'high' }, 'high'],
    [{ priority: 'normal' }, 'normal'],
    [{ priority: 'normal', interruptionLevel: 'time-sensitive' }, 'high'],
    [{ priority: 'normal', interruptionLevel: 'critical' }, 'high'],
    [{ priority: 'high', interruptionLevel: 'passive' }, 'low'],
    [{ priority: 'normal', interruptionLevel: 'active' }, 'normal'],
  ] as const)('%o → %s', (message, urgency) => {
    expect(urgencyFor(message)).toBe(urgency);
  });
});

describe('Topic', () => {
  test('a collapse id of 1-32 URL-safe base64 characters is the topic as is', () => {
    expect(topicFor('score')).toBe('score');
    expect(topicFor('A-_9'.repeat(8))).toBe('A-_9'.repeat(8));
  });

  test('any other collapse id becomes a stable 32-character base64url digest; none gives no topic', () => {
    for (const id of ['match 42: score', 'x'.repeat(33), 'café', 'a/b']) {
      const topic = topicFor(id)!;
      expect(topic).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(topicFor(id)).toBe(topic);
    }
    expect(topicFor('match 42')).not.toBe(topicFor('match 43'));
    expect(topicFor(undefined)).toBeUndefined();
    expect(topicFor('')).toBeUndefined();
  });
});

describe('push headers', () => {
  test('aes128gcm, TTL four weeks by default (whole seconds, never negative), urgency normal, topic only when given', () => {
    expect(DEFAULT_TTL_SECONDS).toBe(2_419_200);
    expect(pushHeaders({})).toEqual({ 'content-type': 'application/octet-stream', 'content-encoding': 'aes128gcm', ttl: '2419200', urgency: 'normal' });
    expect(pushHeaders({ ttlSeconds: 90.7, urgency: 'low', topic: 't' })).toMatchObject({ ttl: '90', urgency: 'low', topic: 't' });
    expect(pushHeaders({ ttlSeconds: -5 }).ttl).toBe('0');
  });
});
