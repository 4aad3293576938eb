/** Why Google refuses a message: the stand-in answers 400 INVALID_ARGUMENT with the description, naming the field when Google does. */
export interface FcmRefusal {
  description: string;
  field?: string;
}

/** FCM's limit on a message's payload (Google: "Maximum payload for both message types is 4096 bytes"). */
const MAX_MESSAGE_BYTES = 4096;

/**
 * Google's rules for a message's data and Android options beyond the stand-in's checks of targets,
 * data value types and the ttl's format (FCM v1 `Message`, `AndroidConfig`, `AndroidNotification`):
 *
 * - data keys not reserved: `from`, `message_type`, or starting `google` or `gcm` (FCM answers 400
 *   INVALID_ARGUMENT "Invalid data payload key: from"; `notification`, which the reference also
 *   lists, is accepted by FCM itself);
 * - the message (data, notification and Android options) at most 4096 bytes: "Android message is too big";
 * - `android.priority` normal or high; `android.notification.notification_count` a non-negative integer;
 *   `android.collapse_key`, `channel_id`, `sound`, `image`, `click_action`, `tag` strings (`tag`: the
 *   identifier that replaces a shown notification with the same tag in the drawer; `sound`: `default` or
 *   the name of a sound resource in the app's `res/raw`).
 */
export function checkFcmMessage(message: Record<string, any>): FcmRefusal | undefined {
  for (const key of Object.keys(message.data ?? {})) {
    const lower = key.toLowerCase();
    if (key === 'from' || key === 'message_type' || lower.startsWith('google') || lower.startsWith('gcm'))
      return { description: `Invalid data payload key: ${key}`, field: 'message.data' };
  }
  const { token: _token, topic: _topic, ...payload } = message;
  if (Buffer.byteLength(JSON.stringify(payload)) > MAX_MESSAGE_BYTES) return { description: 'Android message is too big' };
  const android = message.android ?? {};
  if (android.priority !== undefined && !['normal', 'high', 'NORMAL', 'HIGH'].includes(android.priority))
    return invalid('message.android.priority', `Invalid value at 'message.android.priority' (type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority), "${android.priority}"`);
  const notification = android.notification ?? {};
  const count = notification.notification_count;
  if (count !== undefined && !(Number.isInteger(count) && count >= 0))
    return invalid('message.android.notification.notification_count', `Invalid value at 'message.android.notification.notification_count' (TYPE_INT32), ${JSON.stringify(count)}`);
  for (const [field, value] of [
    ['message.android.collapse_key', android.collapse_key],
    ...['channel_id', 'sound', 'image', 'click_action', 'tag'].map((k) => [`message.android.notification.${k}`, notification[k]]),
  ] as [string, unknown][]) {
    if (value !== undefined && typeof value !== 'string') return invalid(field, `Invalid value at '${field}' (TYPE_STRING), ${JSON.stringify(value)}`);
  }
  return undefined;
}

const invalid = (field: string, description: string): FcmRefusal => ({ description, field });
