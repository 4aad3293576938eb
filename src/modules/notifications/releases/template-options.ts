import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { HttpError } from '../../../lib/errors';
import { PlaceholderSyntaxError, placeholderNames } from '../send/placeholders';

/**
 * The optional platform features of a notification template (issue 36), stored as JSON in
 * `notification_templates.options`. Where each lands in the APNs and FCM payloads is in
 * delivery/payloads.ts and docs/device-contract.md.
 */
export interface TemplateOptions {
  subtitle?: string;
  data?: Record<string, string>;
  /** A sound file of the app, `default` (what an absent sound means) or `none`. */
  sound?: string;
  badge?: number;
  image?: string;
  /** Web Push: what a click opens (https, placeholders); absent: the app's Web Push defaultUrl. */
  url?: string;
  threadId?: string;
  category?: string;
  interruptionLevel?: InterruptionLevel;
  relevanceScore?: number;
  androidChannelId?: string;
  collapseId?: string;
  ttlSeconds?: number;
  priority?: 'high' | 'normal';
  silent?: boolean;
}

export type InterruptionLevel = 'passive' | 'active' | 'time-sensitive' | 'critical';

/** FCM's longest time to live (4 weeks), also the longest a template or a send may ask. */
export const MAX_TTL_SECONDS = 2_419_200;
/** Apple: the apns-collapse-id header's value must not exceed 64 bytes. */
export const MAX_COLLAPSE_ID_BYTES = 64;
/** The largest badge: APNs takes a number, FCM's notification_count an int32. */
export const MAX_BADGE = 2_147_483_647;

const Text = (description: string) => t.String({ minLength: 1, maxLength: 256, description });

/** The request and response schema of each field, for the admin routes and the OpenAPI document. */
export const TemplateOptionFields = {
  subtitle: t.Optional(t.String({ maxLength: 4096, description: 'APNs `aps.alert.subtitle`; on Android the data key `isletSubtitle`. Placeholders allowed.' })),
  data: t.Optional(
    t.Record(t.String(), t.String({ maxLength: 4096 }), {
      description:
        'Custom data for the app, string to string (a deep link, an id): APNs keys beside `aps`, FCM `message.data`. Placeholders allowed in values. ' +
        'Keys reserved by the platforms are refused: `aps`, `from`, `message_type`, `notification`, keys starting `google` or `gcm`, and keys starting `islet` (Islet\'s own).',
    }),
  ),
  sound: t.Optional(Text('A sound file of the app, or `default` (the default); `none` sends no sound. APNs `aps.sound`, FCM `android.notification.sound`.')),
  badge: t.Optional(Type.Integer({ minimum: 0, maximum: MAX_BADGE, description: 'APNs `aps.badge` (0 clears it), FCM `android.notification.notification_count`.' })),
  image: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 2048,
      description: 'An https URL (placeholders allowed). APNs: `mutable-content: 1` and the URL under the key `isletImage` for the app\'s notification service extension; FCM `android.notification.image`.',
    }),
  ),
  url: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 2048,
      description: "Web devices: what a click opens (`notification.navigate` of the Declarative Web Push message), an https URL, placeholders allowed; absent: the app's Web Push `defaultUrl`. Not sent to phones.",
    }),
  ),
  threadId: t.Optional(Text('APNs `aps.thread-id`: groups notifications.')),
  category: t.Optional(Text('APNs `aps.category` (the actions the app registered), FCM `android.notification.click_action`.')),
  interruptionLevel: t.Optional(
    t.Union([t.Literal('passive'), t.Literal('active'), t.Literal('time-sensitive'), t.Literal('critical')], {
      description: 'APNs `aps.interruption-level`. `critical` also sends the sound as a critical alert sound (needs Apple\'s entitlement).',
    }),
  ),
  relevanceScore: t.Optional(t.Number({ minimum: 0, maximum: 1, description: 'APNs `aps.relevance-score`, 0 to 1.' })),
  androidChannelId: t.Optional(Text('FCM `android.notification.channel_id`: a channel the app created.')),
  collapseId: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 256,
      description: `APNs \`apns-collapse-id\` and FCM \`android.collapse_key\`: a newer notification with the same id replaces the older. Placeholders allowed; at most ${MAX_COLLAPSE_ID_BYTES} bytes once rendered.`,
    }),
  ),
  ttlSeconds: t.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_TTL_SECONDS,
      description: 'How long the providers keep the notification for an offline device: APNs `apns-expiration` (0: not stored), FCM `android.ttl`.',
    }),
  ),
  priority: t.Optional(t.Union([t.Literal('high'), t.Literal('normal')], { description: '`high` (default): APNs priority 10, FCM high; `normal`: 5 and normal.' })),
  silent: t.Optional(
    t.Boolean({
      description:
        'A background push: APNs `apns-push-type: background`, priority 5, `aps: {content-available: 1}` and the data; on Android a data-only message. ' +
        'Title and body may be empty and are not sent; the display fields (subtitle, sound, badge, image, threadId, category, interruptionLevel, relevanceScore, androidChannelId) are refused.',
    }),
  ),
};

export const OPTION_KEYS = Object.keys(TemplateOptionFields) as (keyof TemplateOptions)[];

/** What a silent (background) push cannot carry: it shows nothing. */
const DISPLAY_ONLY: (keyof TemplateOptions)[] = ['subtitle', 'sound', 'badge', 'image', 'url', 'threadId', 'category', 'interruptionLevel', 'relevanceScore', 'androidChannelId'];

/** The fields that take placeholders. */
const TEMPLATED: ('subtitle' | 'image' | 'url' | 'collapseId')[] = ['subtitle', 'image', 'url', 'collapseId'];

/**
 * Why a data key cannot be used, or undefined when it can: APNs reserves `aps`; FCM `from`,
 * `message_type`, `notification` and keys starting `google` or `gcm` (its reference has said both
 * "google"/"gcm" and "google."/"gcm.notification."; the broader is refused); Islet keeps `islet…`
 * for what it adds (the message id, the image, the subtitle on Android).
 */
export function reservedDataKey(key: string): string | undefined {
  if (key === '') return 'data keys must not be empty';
  if (key === 'aps') return 'data key aps is reserved by APNs';
  const lower = key.toLowerCase();
  if (key === 'from' || key === 'message_type' || key === 'notification' || lower.startsWith('google') || lower.startsWith('gcm'))
    return `data key ${key} is reserved by FCM`;
  if (lower.startsWith('islet')) return `data key ${key} is reserved by Islet (keys starting islet carry what Islet adds)`;
  return undefined;
}

/**
 * The options given with a template, checked beyond their schema (400 naming the field, `path`
 * its prefix such as `templates.0.`): placeholders, reserved data keys, an https image, the
 * collapse id's size with every placeholder empty, nothing a background push cannot carry.
 * Returns the options that were given (none: undefined) and their placeholder names.
 */
export function checkedOptions(input: TemplateOptions, path: string): { options: TemplateOptions | undefined; placeholders: string[] } {
  const options: TemplateOptions = {};
  for (const key of OPTION_KEYS) if (input[key] !== undefined) (options as Record<string, unknown>)[key] = input[key];
  const names: string[] = [];
  const scan = (field: string, text: string) => {
    try {
      names.push(...placeholderNames(text));
    } catch (e) {
      if (e instanceof PlaceholderSyntaxError) throw new HttpError(400, `${path}${field} has an invalid placeholder: ${e.fragment}`);
      throw e;
    }
  };
  for (const field of TEMPLATED) if (options[field] !== undefined) scan(field, options[field]);
  for (const [key, value] of Object.entries(options.data ?? {})) {
    const reserved = reservedDataKey(key);
    if (reserved) throw new HttpError(400, `${path}${reserved}`);
    scan(`data.${key}`, value);
  }
  if (options.image !== undefined && !options.image.startsWith('{{') && !options.image.toLowerCase().startsWith('https://'))
    throw new HttpError(400, `${path}image must be an https URL`);
  if (options.url !== undefined && !options.url.startsWith('{{') && !options.url.toLowerCase().startsWith('https://')) throw new HttpError(400, `${path}url must be an https URL`);
  if (options.collapseId !== undefined) {
    const bytes = Buffer.byteLength(options.collapseId.replace(/\{\{[^}]*\}\}/g, ''));
    if (bytes > MAX_COLLAPSE_ID_BYTES) throw new HttpError(400, `${path}collapseId is ${bytes} bytes even with every placeholder empty; APNs allows at most ${MAX_COLLAPSE_ID_BYTES}`);
  }
  if (options.silent) {
    const shown = DISPLAY_ONLY.find((key) => options[key] !== undefined);
    if (shown) throw new HttpError(400, `${path}${shown} cannot be used with silent: a background push shows nothing`);
  }
  return { options: Object.keys(options).length > 0 ? options : undefined, placeholders: names };
}

/** The stored JSON of a template's options, or null when it has none. */
export const optionsJson = (options: TemplateOptions | undefined): string | null => (options ? JSON.stringify(options) : null);

/** A stored template's options ({} when null: a template made before they existed, or without any). */
export const parseOptions = (json: string | null | undefined): TemplateOptions => (json ? (JSON.parse(json) as TemplateOptions) : {});
