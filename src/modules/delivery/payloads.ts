import { swiftValues } from '../../lib/swift-date';
import type { ApnsRequest } from './apns-request';
import { CUSTOM_ACTIVITY_ID_KEY, type LiveActivityContent, type MessageContent } from './message-content';
import { notificationMessage, notificationRequest } from './notification-payloads';

/** APNs refuses payloads larger than this; FCM's data limit is the same size. */
export const MAX_PAYLOAD_BYTES = 4096;

/** The name of the ActivityAttributes type the iOS app declares (docs/device-contract.md). */
export const ATTRIBUTES_TYPE = 'IsletActivityAttributes';

const seconds = (ms: number) => Math.floor(ms / 1000);
const HOUR_S = 3600;
/** FCM `ttl` of a start or end: as long as iOS keeps an activity visible (12 h). */
const START_END_TTL_S = 12 * HOUR_S;
/** FCM `ttl` of an update without a stale date: an hour-old state is not worth showing. */
const UPDATE_TTL_S = HOUR_S;

/**
 * The APNs request (headers and JSON body) for a message, given the app's bundle id.
 * @example apnsRequest(content, 'com.example.app').headers['apns-push-type'] // 'liveactivity'
 */
export function apnsRequest(content: MessageContent, bundleId: string): ApnsRequest {
  if (content.type === 'notification') return notificationRequest(content, bundleId);
  if (content.type === 'reload') return reloadRequest(content, bundleId);
  return { headers: liveActivityHeaders(content, bundleId), body: { aps: liveActivityAps(content) } };
}

/**
 * A WidgetKit reload as Apple documents it ("Updating widgets with WidgetKit push notifications",
 * "Updating controls locally and remotely"): push type `widgets` or `controls`, topic
 * `<bundleId>.push-type.widgets` or `.push-type.controls`, body `{"aps":{"content-changed":true}}`.
 * Controls also carry the `apns-expiration: 0` and `apns-priority: 10` of Apple's sample request;
 * the widgets sample names no priority (APNs' default, 10) and no expiration.
 */
function reloadRequest(content: Extract<MessageContent, { type: 'reload' }>, bundleId: string): ApnsRequest {
  const headers: Record<string, string> = { 'apns-push-type': content.target, 'apns-topic': `${bundleId}.push-type.${content.target}` };
  if (content.target === 'controls') Object.assign(headers, { 'apns-expiration': '0', 'apns-priority': '10' });
  return { headers, body: { aps: { 'content-changed': true } } };
}

/** A Live Activity push's APNs headers; its body does not depend on the bundle id (see RenderedPayloads). */
export function liveActivityHeaders(content: LiveActivityContent, bundleId: string): Record<string, string> {
  return { 'apns-push-type': 'liveactivity', 'apns-topic': `${bundleId}.push-type.liveactivity`, 'apns-priority': String(content.priority ?? 10) };
}

function liveActivityAps(c: LiveActivityContent): Record<string, unknown> {
  const contentState = c.custom ? swiftValues(c.contentState, c.custom.dates?.contentState) : c.contentState;
  const aps: Record<string, unknown> = { timestamp: c.apnsTimestamp ?? seconds(c.timestamp), event: c.event, 'content-state': contentState };
  if (c.event === 'start') {
    aps['attributes-type'] = c.custom?.attributesType ?? ATTRIBUTES_TYPE;
    // An app-defined type gets its own fields at the top, plus Islet's activity id (ignored unless the struct declares it).
    aps.attributes = c.custom
      ? { ...swiftValues(c.attributes, c.custom.dates?.attributes), [CUSTOM_ACTIVITY_ID_KEY]: c.activityId }
      : { activityId: c.activityId, templateSlug: c.templateSlug, values: c.attributes };
    // A broadcast's activity follows its channel; any other needs its own update token, which
    // iOS 18 issues only when asked.
    if (c.inputPushChannel !== undefined) aps['input-push-channel'] = c.inputPushChannel;
    else aps['input-push-token'] = 1;
  }
  // The sound of a Live Activity alert goes inside `alert`, unlike a notification's.
  if (c.alert) aps.alert = c.alert;
  if (c.staleDate !== undefined) aps['stale-date'] = seconds(c.staleDate);
  if (c.relevanceScore !== undefined) aps['relevance-score'] = c.relevanceScore;
  if (c.event === 'end' && c.dismissalAt !== undefined) aps['dismissal-date'] = seconds(c.dismissalAt);
  return aps;
}

/**
 * The FCM HTTP v1 `message` (without the token) for a message: a data message for live activities
 * (every value a string, which FCM requires), a notification message for notifications. A live
 * activity's messages collapse by activity (a newer replaces an older one still undelivered) and
 * live as long as they are worth showing: an update until its stale date (else an hour), a start
 * or end 12 hours.
 */
export function fcmMessage(content: MessageContent): Record<string, unknown> {
  if (content.type === 'notification') return notificationMessage(content);
  // Reloads go only to WidgetKit tokens, which are iOS tokens (issue 47): nothing reaches FCM.
  if (content.type === 'reload') throw new Error('a WidgetKit reload has no FCM message');
  const data: Record<string, string> = {
    type: 'live_activity',
    event: content.event,
    activityId: content.activityId,
    templateSlug: content.templateSlug,
    ...(content.custom ? { attributesType: content.custom.attributesType } : {}),
    attributes: JSON.stringify(content.attributes),
    contentState: JSON.stringify(content.contentState),
    timestamp: String(content.timestamp),
  };
  // Strictly increasing per activity (timestamps in ms can tie): what an app orders events by.
  if (content.apnsTimestamp !== undefined) data.sequence = String(content.apnsTimestamp);
  if (content.topic !== undefined) data.topic = content.topic;
  if (content.dismissalAt !== undefined) data.dismissalAt = String(content.dismissalAt);
  if (content.staleDate !== undefined) data.staleDate = String(content.staleDate);
  if (content.relevanceScore !== undefined) data.relevanceScore = String(content.relevanceScore);
  if (content.alert) {
    data.alertTitle = content.alert.title;
    data.alertBody = content.alert.body;
    if (content.alert.sound !== undefined) data.alertSound = content.alert.sound;
  }
  return { android: { priority: content.priority === 5 ? 'normal' : 'high', collapse_key: content.activityId, ttl: `${activityTtlSeconds(content)}s` }, data };
}

/** How long a push service keeps a Live Activity event for an offline device (FCM `ttl`, Web Push `TTL`). */
export function activityTtlSeconds(content: LiveActivityContent): number {
  if (content.event !== 'update') return START_END_TTL_S;
  return content.staleDate !== undefined ? Math.max(0, Math.ceil((content.staleDate - content.timestamp) / 1000)) : UPDATE_TTL_S;
}


/**
 * A message's payloads rendered once: the APNs body (the same for every bundle id) and the size in
 * bytes of the larger of the two providers' payloads, to refuse what neither would accept. A Live
 * Activity update keeps `apnsBody` as its message's sent body, which the worker sends as it is.
 */
export interface RenderedPayloads {
  apnsBody: string;
  bytes: number;
}

export function renderPayloads(content: MessageContent): RenderedPayloads {
  const apnsBody = apnsBodyOf(content);
  return { apnsBody, bytes: Math.max(Buffer.byteLength(apnsBody), Buffer.byteLength(JSON.stringify(fcmMessage(content)))) };
}

/** The APNs body of a message, as the worker sends it (the same for every bundle id). */
export const apnsBodyOf = (content: MessageContent): string => JSON.stringify(apnsRequest(content, 'x').body);

/** The larger of the two providers' payload sizes in bytes (renderPayloads). */
export function payloadBytes(content: MessageContent): number {
  return renderPayloads(content).bytes;
}
