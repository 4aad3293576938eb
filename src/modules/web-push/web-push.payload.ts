/**
 * Declarative Web Push (WebKit; the W3C Push API's "declarative push message"): JSON that Safari
 * 18.4+ shows without running a service worker, and that a classic service worker reads as
 * `event.data.json()` in every other browser. `navigate` is what a click opens.
 */
export interface DeclarativePushMessage {
  web_push: 8030;
  notification: {
    title: string;
    body?: string;
    navigate: string;
    lang?: string;
    /** A later notification with the same tag replaces this one (a Live Activity's updates). */
    tag?: string;
    /** No sound or vibration (it is still shown). */
    silent?: boolean;
    data: Record<string, string>;
  };
  /** The Badging API's app badge; 0 clears it. */
  app_badge?: number;
}

export interface WebNotification {
  title: string;
  body?: string;
  /** An https URL (the template's `url`, else the app's `defaultUrl`). */
  navigate: string;
  /** BCP 47, the localization the message was rendered in. */
  lang?: string;
  tag?: string;
  silent?: boolean;
  badge?: number;
  /** The public id (`msg_…`): the page reports opens with it, as the apps do with `isletMessageId`. */
  messageId?: string;
  /** The template's data merged with the send's. */
  data?: Record<string, string>;
}

/** The key of the message id in `notification.data`, the same as on iOS and Android. */
export const MESSAGE_ID_KEY = 'isletMessageId';

/**
 * The Declarative Web Push message of a notification: empty and absent fields left out, the
 * badge only when it is a whole number from 0, the message id in `notification.data`.
 * @example JSON.stringify(declarativePushMessage({ title: 'Goal', navigate: 'https://example.com/m/1', messageId: 'msg_1' }))
 * // '{"web_push":8030,"notification":{"title":"Goal","navigate":"https://example.com/m/1","data":{"isletMessageId":"msg_1"}}}'
 */
export function declarativePushMessage(n: WebNotification): DeclarativePushMessage {
  const notification: DeclarativePushMessage['notification'] = { title: n.title, ...(n.body ? { body: n.body } : {}), navigate: n.navigate, data: {} };
  if (n.lang) notification.lang = n.lang;
  if (n.tag) notification.tag = n.tag;
  if (n.silent) notification.silent = true;
  // Last, so the send's data cannot hide the id the page reports opens with.
  notification.data = { ...n.data, ...(n.messageId ? { [MESSAGE_ID_KEY]: n.messageId } : {}) };
  const message: DeclarativePushMessage = { web_push: 8030, notification };
  if (n.badge !== undefined && Number.isSafeInteger(n.badge) && n.badge >= 0) message.app_badge = n.badge;
  return message;
}
