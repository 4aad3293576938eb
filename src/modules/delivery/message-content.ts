/**
 * What a queued message says, independent of the provider. Stored as JSON in `messages.content`;
 * the APNs and FCM payload builders turn it into the bytes each provider gets.
 */

export interface NotificationContent {
  type: 'notification';
  templateSlug: string;
  releaseVersion: number;
  title: string;
  body: string;
}

export type LiveActivityEvent = 'start' | 'update' | 'end';

export interface LiveActivityContent {
  type: 'live_activity';
  event: LiveActivityEvent;
  activityId: string;
  templateSlug: string;
  /** Static data; sent with start (APNs) and with every event (FCM, so the app can always render). */
  attributes: Record<string, string>;
  contentState: Record<string, string>;
  /** When the event happened, ms since the epoch (APNs `timestamp` orders updates). */
  timestamp: number;
  /** End only: when the system should remove the activity from the Lock Screen, ms. */
  dismissalAt?: number;
  /** Start only: the alert that accompanies a push-to-start. */
  alert?: { title: string; body: string };
}

export type MessageContent = NotificationContent | LiveActivityContent;

/** The `messages.kind` column for a content. */
export function messageKind(content: MessageContent): 'notification' | 'la_start' | 'la_update' | 'la_end' {
  return content.type === 'notification' ? 'notification' : `la_${content.event}`;
}
