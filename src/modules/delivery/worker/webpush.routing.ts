import type { MessageContent } from '../message-content';
import type { ClaimedDelivery, Route, WebPushChannel } from './routing.types';
import { activityPush, notificationPush, type WebPushContent } from './webpush.content';

export type { WebPushChannel } from './routing.types';

export const NO_WEB_PUSH = 'the app has no Web Push: PUT /api/admin/apps/{appId}/web-push';
export const SILENT_NOT_FOR_WEB = 'silent notifications are not sent to web devices: every web push must show a notification';

/**
 * A delivery to a web device: the Declarative Web Push JSON of the notification or Live Activity
 * event (webpush.content.ts), encrypted and signed by the `webpush` transport. The recorded URL is
 * the endpoint's origin only: the endpoint itself is a capability.
 */
export function routeWebPush(row: ClaimedDelivery, content: MessageContent, web: WebPushChannel | undefined, pushes: Map<string, WebPushContent>): Route {
  if (!web) return { action: 'fail', reason: NO_WEB_PUSH };
  if (content.type === 'notification' && content.silent) return { action: 'drop', reason: SILENT_NOT_FOR_WEB };
  if (content.type === 'reload') return { action: 'drop', reason: 'a WidgetKit reload is for iOS devices only' };
  const endpoint = row.tokenValue;
  if (endpoint === null || row.tokenSecret === null || !URL.canParse(endpoint)) return { action: 'fail', reason: 'device token removed' };
  let keys: { p256dh: Buffer; auth: Buffer };
  try {
    keys = web.openSubscription(endpoint, row.tokenSecret);
  } catch {
    return { action: 'fail', reason: 'the subscription keys cannot be read (sealed with another master key?)' };
  }
  // One push per message and default URL, shared by the fan-out.
  const cacheKey = `${row.messageId}\n${web.defaultUrl}`;
  let push = pushes.get(cacheKey);
  if (push === undefined) {
    if (pushes.size >= 256) pushes.delete(pushes.keys().next().value!);
    push = content.type === 'notification' ? notificationPush(content, web.defaultUrl) : activityPush(content, web.defaultUrl);
    pushes.set(cacheKey, push);
  }
  const { payload, ttlSeconds, urgency, topic } = push;
  return {
    action: 'send',
    transport: 'webpush',
    request: {
      appId: row.appId,
      provider: 'webpush',
      url: new URL(endpoint).origin,
      headers: { ...(ttlSeconds !== undefined ? { ttl: String(ttlSeconds) } : {}), urgency, ...(topic ? { topic } : {}) },
      body: payload,
      webpush: { appId: row.appId, subscription: { endpoint, ...keys }, vapid: { keys: web.keys, subject: web.subject }, payload, ttlSeconds, urgency, topic },
    },
  };
}
