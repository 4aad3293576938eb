import { describe, expect, test } from 'bun:test';
import type { LiveActivityContent } from '../message-content';
import { activityPush, notificationPush } from './webpush.content';

const NOW = Date.parse('2026-01-15T12:00:00Z');
const event = (over: Partial<LiveActivityContent>): LiveActivityContent => ({
  type: 'live_activity',
  event: 'update',
  activityId: 'la_abc',
  templateSlug: 'progress-bar',
  attributes: { label: 'Upload' },
  contentState: { progress: '42' },
  timestamp: NOW,
  web: { title: 'Upload', body: '42%' },
  ...over,
});
const shown = (content: LiveActivityContent) => JSON.parse(activityPush(content, 'https://shop.example.com/').payload).notification;

describe('a Live Activity event as web devices get it', () => {
  test('one tag per activity; quiet unless the event has an alert', () => {
    expect(shown(event({ event: 'start', alert: { title: 'Upload', body: '42%' } }))).toEqual({
      title: 'Upload',
      body: '42%',
      navigate: 'https://shop.example.com/',
      tag: 'la_abc',
      data: { isletActivityId: 'la_abc', isletActivityEvent: 'start' },
    });
    expect(shown(event({}))).toMatchObject({ tag: 'la_abc', silent: true });
    expect(shown(event({ alert: { title: 'Almost', body: 'there' } }))).not.toHaveProperty('silent');
    expect(shown(event({ event: 'end' }))).toMatchObject({ silent: true, data: { isletActivityEvent: 'end' } });
  });

  test('Topic is the activity id, Urgency follows the priority, TTL is what Android gets', () => {
    expect(activityPush(event({}), 'https://x.example/')).toMatchObject({ topic: 'la_abc', urgency: 'high', ttlSeconds: 3600 });
    expect(activityPush(event({ priority: 5, staleDate: NOW + 90_000 }), 'https://x.example/')).toMatchObject({ urgency: 'normal', ttlSeconds: 90 });
    expect(activityPush(event({ event: 'end' }), 'https://x.example/').ttlSeconds).toBe(12 * 3600);
  });

  test('an event queued before web devices got them shows its template', () => {
    expect(shown(event({ web: undefined }))).toMatchObject({ title: 'progress-bar' });
  });
});

test("a notification's lang is its localization's tag", () => {
  const content = { type: 'notification' as const, templateSlug: 's', releaseVersion: 1, title: 'Hallo', body: 'Welt', lang: 'de-AT', messageId: 'msg_1' };
  expect(JSON.parse(notificationPush(content, 'https://x.example/').payload).notification).toMatchObject({ title: 'Hallo', lang: 'de-AT' });
});
