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
  /**
   * How long FCM keeps the message for an offline device: the template's or the send's
   * `ttlSeconds`, else `notifications.ttl_seconds`.
   */
  ttlSeconds?: number;
  // The template's platform features, rendered (issue 36); every one optional, so a content queued
  // before they existed is sent as it was. Where each goes: payloads.ts.
  /** The public id (`msg_…`) the send answered; the device gets it as `isletMessageId`. */
  messageId?: string;
  subtitle?: string;
  /** The template's data merged with the send's (the send's wins). */
  data?: Record<string, string>;
  /** A sound file, `default` or `none`; absent: `default`. */
  sound?: string;
  badge?: number;
  /** An https URL. */
  image?: string;
  /** Web Push: what a click opens (the template's `url`, rendered); absent: the app's defaultUrl. */
  url?: string;
  /** The BCP 47 tag of the localization the text comes from (Web Push `lang`); absent: the template's own text. */
  lang?: string;
  threadId?: string;
  category?: string;
  interruptionLevel?: 'passive' | 'active' | 'time-sensitive' | 'critical';
  relevanceScore?: number;
  androidChannelId?: string;
  collapseId?: string;
  /** The `apns-expiration`, Unix seconds (0: deliver once or not at all); only when the template or the send set `ttlSeconds`. */
  apnsExpiration?: number;
  /** Absent: high. */
  priority?: 'high' | 'normal';
  /** A background push (APNs) and a data-only message (FCM): no title, body, sound or badge. */
  silent?: boolean;
}

/** An alert that lights the screen with a Live Activity event (start, update). */
export interface ActivityAlert {
  title: string;
  body: string;
  /** A sound file of the app bundle, or `default`. */
  sound?: string;
}

export type LiveActivityEvent = 'start' | 'update' | 'end';

/**
 * The attribute key that carries Islet's activity id in an app-defined template's APNs start: the
 * app's struct may declare it (`var isletActivityId: String?`) to report the activity's push token;
 * Swift's synthesized `Decodable` ignores it otherwise. No field may use the name.
 */
export const CUSTOM_ACTIVITY_ID_KEY = 'isletActivityId';

/** What the payloads of an app-defined template's event need beyond its values. */
export interface CustomContent {
  attributesType: string;
  /** The names of the date fields of each part (absent: none). */
  dates?: { attributes?: string[]; contentState?: string[] };
}

/** What a web device shows for an activity event: a notification's title and body (issue 46 point 5). */
export interface WebActivityText {
  title: string;
  body: string;
}

export interface LiveActivityContent {
  type: 'live_activity';
  event: LiveActivityEvent;
  activityId: string;
  templateSlug: string;
  /**
   * Static data; sent with start (APNs) and with every event (FCM, so the app can always render).
   * Strings for the built-in templates; typed JSON values for an app-defined one (`custom`).
   */
  attributes: Record<string, unknown>;
  contentState: Record<string, unknown>;
  /** An app-defined template's (issue 39): its ActivityAttributes type, and which fields are dates (ISO 8601 here; APNs gets seconds since 2001). */
  custom?: CustomContent;
  /** When the event happened, ms since the epoch. */
  timestamp: number;
  /**
   * The APNs `timestamp`, Unix seconds, strictly increasing per activity (live-activities.repository
   * `nextTimestamp`); absent in contents queued before it existed: then the seconds of `timestamp`.
   */
  apnsTimestamp?: number;
  /** End only: when the device removes the activity, ms (every end since issue 27 has one; absent only in ends queued before: the system's default). */
  dismissalAt?: number;
  /** Start (always: the template's alert unless given) and update (only when given). */
  alert?: ActivityAlert;
  /** APNs priority: 10 (default) is immediate and spends the device's budget, 5 does not. Android: high / normal. */
  priority?: 5 | 10;
  /** The priority was chosen by `priority: "auto"` (issue 47), not asked for. */
  autoPriority?: true;
  /** Start and update: when the content becomes stale, ms. */
  staleDate?: number;
  /** Start and update: orders several activities of the app. */
  relevanceScore?: number;
  /**
   * The notification a web device shows, rendered from the template when the event was queued
   * (live-activities/web-activity-text.ts); absent in contents queued before web devices got them.
   */
  web?: WebActivityText;
  /** A broadcast's start (iOS 18+): the APNs channel the started activity follows (`input-push-channel`). */
  inputPushChannel?: string;
  /** A broadcast's start on Android: the FCM topic the app subscribes to for its updates. */
  topic?: string;
}

/**
 * A WidgetKit reload (issue 47): `{"aps":{"content-changed":true}}` to a device's widget push token
 * (iOS 26+) or control push token (iOS 18+); WidgetKit reloads the app's widgets or controls.
 */
export interface ReloadContent {
  type: 'reload';
  target: 'widgets' | 'controls';
}

export type MessageContent = NotificationContent | LiveActivityContent | ReloadContent;

export type MessageKind = 'notification' | 'la_start' | 'la_update' | 'la_end' | 'widgets_reload' | 'controls_reload';

/** The `messages.kind` column for a content. */
export function messageKind(content: MessageContent): MessageKind {
  if (content.type === 'reload') return `${content.target}_reload`;
  return content.type === 'notification' ? 'notification' : `la_${content.event}`;
}
