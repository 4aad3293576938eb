import { declarativePushMessage } from '../../web-push/web-push.payload';
import type { LiveActivityContent, NotificationContent } from '../message-content';
import { activityTtlSeconds } from '../payloads';
import { topicFor, urgencyFor, type Urgency } from '../providers/webpush/webpush.headers';

/** The keys of a Live Activity's notification data: which activity and event it shows. */
export const ACTIVITY_ID_KEY = 'isletActivityId';
export const ACTIVITY_EVENT_KEY = 'isletActivityEvent';

/** One message's push to web devices: the Declarative Web Push JSON and its RFC 8030 headers. */
export interface WebPushContent {
  payload: string;
  ttlSeconds?: number;
  urgency: Urgency;
  topic?: string;
}

/**
 * A notification as web devices get it: navigate is the template's `url`, else the app's
 * defaultUrl; `lang` the localization's tag; Topic from the collapse id.
 */
export function notificationPush(content: NotificationContent, defaultUrl: string): WebPushContent {
  const message = declarativePushMessage({
    title: content.title,
    body: content.body,
    navigate: content.url ?? defaultUrl,
    lang: content.lang,
    badge: content.badge,
    messageId: content.messageId,
    data: content.data,
  });
  return { payload: JSON.stringify(message), ttlSeconds: content.ttlSeconds, urgency: urgencyFor(content), topic: topicFor(content.collapseId) };
}

/**
 * A Live Activity event as web devices get it (issue 46 point 5): one notification per activity
 * that each event replaces (`tag` and Topic: the activity id, so a push still waiting is replaced
 * too), showing the text rendered when the event was queued. Only an event with an alert (every
 * start, an update given one) makes a sound; the end is the final, quiet one. A click opens the
 * app's defaultUrl.
 */
export function activityPush(content: LiveActivityContent, defaultUrl: string): WebPushContent {
  const text = content.web ?? { title: content.templateSlug, body: '' };
  const message = declarativePushMessage({
    title: text.title,
    body: text.body,
    navigate: defaultUrl,
    tag: content.activityId,
    silent: content.alert === undefined,
    data: { [ACTIVITY_ID_KEY]: content.activityId, [ACTIVITY_EVENT_KEY]: content.event },
  });
  return {
    payload: JSON.stringify(message),
    ttlSeconds: activityTtlSeconds(content),
    urgency: urgencyFor({ priority: content.priority === 5 ? 'normal' : 'high' }),
    topic: topicFor(content.activityId),
  };
}
