import { declarativePushMessage } from '../../web-push/web-push.payload';
import type { MessageContent } from '../message-content';
import { urgencyFor, topicFor } from '../providers/webpush/webpush.headers';
import type { ClaimedDelivery, Route, WebPushChannel } from './routing.types';

export type { WebPushChannel } from './routing.types';

export const NO_WEB_PUSH = 'the app has no Web Push: PUT /api/admin/apps/{appId}/web-push';
export const SILENT_NOT_FOR_WEB = 'silent notifications are not sent to web devices: every web push must show a notification';
export const NO_LIVE_ACTIVITY_ON_WEB = 'Live Activities do not reach web devices yet';

/**
 * A delivery to a web device: the Declarative Web Push JSON of the notification (navigate: the
 * template's `url`, else the app's defaultUrl), encrypted and signed by the `webpush` transport. The recorded URL is the
 * endpoint's origin only: the endpoint itself is a capability.
 */
export function routeWebPush(row: ClaimedDelivery, content: MessageContent, web: WebPushChannel | undefined, payloads: Map<string, string>): Route {
  if (!web) return { action: 'fail', reason: NO_WEB_PUSH };
  if (content.type !== 'notification') return { action: 'fail', reason: NO_LIVE_ACTIVITY_ON_WEB };
  if (content.silent) return { action: 'drop', reason: SILENT_NOT_FOR_WEB };
  const endpoint = row.tokenValue;
  if (endpoint === null || row.tokenSecret === null || !URL.canParse(endpoint)) return { action: 'fail', reason: 'device token removed' };
  let keys: { p256dh: Buffer; auth: Buffer };
  try {
    keys = web.openSubscription(endpoint, row.tokenSecret);
  } catch {
    return { action: 'fail', reason: 'the subscription keys cannot be read (sealed with another master key?)' };
  }
  // One payload per message and default URL, shared by the fan-out.
  const cacheKey = `${row.messageId}\n${web.defaultUrl}`;
  let payload = payloads.get(cacheKey);
  if (payload === undefined) {
    if (payloads.size >= 256) payloads.delete(payloads.keys().next().value!);
    const message = declarativePushMessage({
      title: content.title,
      body: content.body,
      navigate: content.url ?? web.defaultUrl,
      badge: content.badge,
      messageId: content.messageId,
      data: content.data,
    });
    payloads.set(cacheKey, (payload = JSON.stringify(message)));
  }
  const ttlSeconds = content.ttlSeconds;
  const urgency = urgencyFor(content);
  const topic = topicFor(content.collapseId);
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
