import { describe, expect, test } from 'bun:test';
import type { NotificationContent } from './message-content';
import { apnsRequest, fcmMessage } from './payloads';

const plain: NotificationContent = { type: 'notification', templateSlug: 'welcome', releaseVersion: 1, title: 'Hi', body: 'There', ttlSeconds: 60 };

const rich: NotificationContent = {
  ...plain,
  messageId: 'msg_1',
  subtitle: 'Sub',
  data: { url: 'shop://orders/7' },
  sound: 'chime.caf',
  badge: 3,
  image: 'https://img.example.com/7.png',
  threadId: 'orders',
  category: 'ORDER',
  interruptionLevel: 'time-sensitive',
  relevanceScore: 0.8,
  androidChannelId: 'orders',
  collapseId: 'order-7',
  ttlSeconds: 3600,
  apnsExpiration: 1_768_482_000,
  priority: 'high',
};

describe('notification payloads', () => {
  test('a content queued before the options existed is sent as before: alert, default sound, priority 10; FCM title, body, high, ttl', () => {
    expect(apnsRequest(plain, 'com.x')).toEqual({
      headers: { 'apns-push-type': 'alert', 'apns-topic': 'com.x', 'apns-priority': '10' },
      body: { aps: { alert: { title: 'Hi', body: 'There' }, sound: 'default' } },
    });
    expect(fcmMessage(plain)).toEqual({ notification: { title: 'Hi', body: 'There' }, android: { priority: 'high', ttl: '60s' } });
  });

  test('APNs: every field where Apple documents it, the data and message id beside aps', () => {
    expect(apnsRequest(rich, 'com.x')).toEqual({
      headers: {
        'apns-push-type': 'alert',
        'apns-topic': 'com.x',
        'apns-priority': '10',
        'apns-collapse-id': 'order-7',
        'apns-expiration': '1768482000',
      },
      body: {
        aps: {
          alert: { title: 'Hi', subtitle: 'Sub', body: 'There' },
          sound: 'chime.caf',
          badge: 3,
          'thread-id': 'orders',
          category: 'ORDER',
          'interruption-level': 'time-sensitive',
          'relevance-score': 0.8,
          'mutable-content': 1,
        },
        url: 'shop://orders/7',
        isletMessageId: 'msg_1',
        isletImage: 'https://img.example.com/7.png',
      },
    });
  });

  test('FCM: every field where Google documents it, data values strings', () => {
    expect(fcmMessage(rich)).toEqual({
      notification: { title: 'Hi', body: 'There' },
      android: {
        priority: 'high',
        collapse_key: 'order-7',
        ttl: '3600s',
        notification: { sound: 'chime.caf', notification_count: 3, image: 'https://img.example.com/7.png', click_action: 'ORDER', channel_id: 'orders', tag: 'order-7' },
      },
      data: { url: 'shop://orders/7', isletMessageId: 'msg_1', isletSubtitle: 'Sub' },
    });
  });

  test('priority normal is APNs 5 and FCM normal; ttl 0 is apns-expiration 0', () => {
    const c: NotificationContent = { ...plain, priority: 'normal', ttlSeconds: 0, apnsExpiration: 0 };
    expect(apnsRequest(c, 'com.x').headers).toMatchObject({ 'apns-priority': '5', 'apns-expiration': '0' });
    expect(fcmMessage(c).android).toEqual({ priority: 'normal', ttl: '0s' });
  });

  test('sound none: no sound on either platform; a critical alert sends the sound as the dictionary Apple documents', () => {
    expect(apnsRequest({ ...plain, sound: 'none' }, 'com.x').body.aps).toEqual({ alert: { title: 'Hi', body: 'There' } });
    expect(fcmMessage({ ...plain, sound: 'none' }).android).toEqual({ priority: 'high', ttl: '60s' });
    expect((apnsRequest({ ...plain, interruptionLevel: 'critical' }, 'com.x').body.aps as Record<string, unknown>).sound).toEqual({ critical: 1, name: 'default', volume: 1 });
    expect((apnsRequest({ ...plain, interruptionLevel: 'critical', sound: 'siren.caf' }, 'com.x').body.aps as Record<string, unknown>).sound).toEqual({
      critical: 1,
      name: 'siren.caf',
      volume: 1,
    });
  });

  test('silent: an APNs background push at priority 5 with only content-available and the data; an FCM data-only message', () => {
    const silent: NotificationContent = { ...plain, title: '', body: '', silent: true, data: { sync: 'inbox' }, messageId: 'msg_2', collapseId: 'sync' };
    expect(apnsRequest(silent, 'com.x')).toEqual({
      headers: { 'apns-push-type': 'background', 'apns-topic': 'com.x', 'apns-priority': '5', 'apns-collapse-id': 'sync' },
      body: { aps: { 'content-available': 1 }, sync: 'inbox', isletMessageId: 'msg_2' },
    });
    expect(fcmMessage(silent)).toEqual({ data: { sync: 'inbox', isletMessageId: 'msg_2' }, android: { priority: 'normal', collapse_key: 'sync', ttl: '60s' } });
    // A template's priority high still goes to APNs at 5 (Apple refuses 10 for a background push), to FCM as high.
    expect(apnsRequest({ ...silent, priority: 'high' }, 'com.x').headers['apns-priority']).toBe('5');
    expect(fcmMessage({ ...silent, priority: 'high' }).android).toMatchObject({ priority: 'high' });
  });
});
