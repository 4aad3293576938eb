import type { NotificationContent } from './message-content';
import type { ApnsRequest } from './apns-request';

/*
 * A notification's APNs request and FCM message, field by field as Apple ("Generating a remote
 * notification", "Sending notification requests to APNs") and Google (FCM v1 Message, AndroidConfig,
 * AndroidNotification) document them. What an app does with each: docs/device-contract.md.
 */

/** The keys Islet adds beside the app's data (APNs custom keys, FCM data): data keys starting `islet` are refused. */
export const MESSAGE_ID_KEY = 'isletMessageId';
/** APNs: the image URL the app's notification service extension downloads (`mutable-content: 1`). */
export const IMAGE_KEY = 'isletImage';
/** FCM: the subtitle, which AndroidNotification has no field for. */
export const SUBTITLE_KEY = 'isletSubtitle';

/**
 * The APNs request of a notification. A silent one is a background push: push type `background`,
 * priority 5 (Apple refuses 10 for it), `aps` holding only `content-available: 1`, and the data.
 * @example notificationRequest({ type: 'notification', …, badge: 3 }, 'com.example.app').body.aps // { alert, sound: 'default', badge: 3 }
 */
export function notificationRequest(c: NotificationContent, bundleId: string): ApnsRequest {
  const headers: Record<string, string> = {
    'apns-push-type': c.silent ? 'background' : 'alert',
    'apns-topic': bundleId,
    'apns-priority': c.silent || c.priority === 'normal' ? '5' : '10',
  };
  if (c.collapseId !== undefined) headers['apns-collapse-id'] = c.collapseId;
  if (c.apnsExpiration !== undefined) headers['apns-expiration'] = String(c.apnsExpiration);
  const custom = customKeys(c);
  if (c.silent) return { headers, body: { aps: { 'content-available': 1 }, ...custom } };
  const alert: Record<string, string> = { title: c.title };
  if (c.subtitle !== undefined) alert.subtitle = c.subtitle;
  alert.body = c.body;
  const aps: Record<string, unknown> = { alert };
  const sound = apnsSound(c);
  if (sound !== undefined) aps.sound = sound;
  if (c.badge !== undefined) aps.badge = c.badge;
  if (c.threadId !== undefined) aps['thread-id'] = c.threadId;
  if (c.category !== undefined) aps.category = c.category;
  if (c.interruptionLevel !== undefined) aps['interruption-level'] = c.interruptionLevel;
  if (c.relevanceScore !== undefined) aps['relevance-score'] = c.relevanceScore;
  if (c.image !== undefined) {
    aps['mutable-content'] = 1;
    custom[IMAGE_KEY] = c.image;
  }
  return { headers, body: { aps, ...custom } };
}

/** `aps.sound`: a name, or for a critical alert the dictionary Apple documents; none for `none`. */
function apnsSound(c: NotificationContent): string | { critical: 1; name: string; volume: number } | undefined {
  const name = c.sound ?? 'default';
  if (name === 'none') return undefined;
  return c.interruptionLevel === 'critical' ? { critical: 1, name, volume: 1 } : name;
}

/** The app's data and the message id, the custom keys beside `aps`. */
function customKeys(c: NotificationContent): Record<string, unknown> {
  const keys: Record<string, unknown> = { ...c.data };
  if (c.messageId !== undefined) keys[MESSAGE_ID_KEY] = c.messageId;
  return keys;
}

/**
 * The FCM v1 message (without its token) of a notification: a notification message with the
 * Android options, or for a silent one a data-only message (which the app's
 * FirebaseMessagingService always receives, and shows nothing by itself).
 */
export function notificationMessage(c: NotificationContent): Record<string, unknown> {
  const android: Record<string, unknown> = { priority: (c.priority ?? (c.silent ? 'normal' : 'high')) };
  if (c.collapseId !== undefined) android.collapse_key = c.collapseId;
  if (c.ttlSeconds !== undefined) android.ttl = `${c.ttlSeconds}s`;
  const data: Record<string, string> = { ...c.data };
  if (c.messageId !== undefined) data[MESSAGE_ID_KEY] = c.messageId;
  if (c.silent) return { data, android };
  const notification: Record<string, unknown> = {};
  if (c.sound !== undefined && c.sound !== 'none') notification.sound = c.sound;
  if (c.badge !== undefined) notification.notification_count = c.badge;
  if (c.image !== undefined) notification.image = c.image;
  if (c.category !== undefined) notification.click_action = c.category;
  if (c.androidChannelId !== undefined) notification.channel_id = c.androidChannelId;
  // As apns-collapse-id replaces the shown notification on iOS: the same tag replaces it on Android.
  if (c.collapseId !== undefined) notification.tag = c.collapseId;
  if (Object.keys(notification).length > 0) android.notification = notification;
  if (c.subtitle !== undefined) data[SUBTITLE_KEY] = c.subtitle;
  const message: Record<string, unknown> = { notification: { title: c.title, body: c.body }, android };
  if (Object.keys(data).length > 0) message.data = data;
  return message;
}
