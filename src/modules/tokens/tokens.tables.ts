import { sql } from 'drizzle-orm';
import { defineTable, id, index, text, time, uniqueIndex } from '../../db/table';
import { apps } from '../apps/apps.tables';
import { devices } from '../devices/devices.tables';
import { activities } from '../live-activities/live-activities.tables';

/**
 * The token ledger: every token Islet knows, with the device that owns it and whether a provider
 * still takes it. Kinds: `apns_device`, `fcm_registration` and `webpush_subscription` (the device's alert token, one per
 * device row: its registration token), `apns_push_to_start` (one active per device; a value belongs
 * to one device), `apns_activity` (an activity's update token on one device), `apns_widget` and
 * `apns_control` (WidgetKit's widget and control push tokens, issue 47: one active each per device). Deliveries name the
 * token they use (`deliveries.token_id`), so a provider's refusal invalidates exactly that token.
 */
export const { sqlite: tokens, pg: tokensPg } = defineTable(
  'tokens',
  {
    id: id(),
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    kind: text(['apns_device', 'apns_push_to_start', 'apns_activity', 'fcm_registration', 'webpush_subscription', 'apns_widget', 'apns_control']).notNull(),
    value: text().notNull(),
    deviceId: text().notNull().references(() => devices.id, { onDelete: 'cascade' }),
    /** apns_activity only. */
    activityId: text().references(() => activities.id, { onDelete: 'cascade' }),
    /** apns_push_to_start only: the app-defined ActivityAttributes type the token starts (issue 39); null: IsletActivityAttributes. */
    attributesType: text(),
    /** APNs host the token belongs to; null: the app's default. Always null for FCM. */
    environment: text(['production', 'sandbox']),
    /**
     * webpush_subscription only: the subscription's keys (`{"p256dh","auth"}`, base64url), sealed
     * with the SecretBox (purpose `tokens.webpush:<appId>:<endpoint>`), never shown. The endpoint
     * itself is `value` (and the device's `token`), so a 410 retires exactly that subscription.
     */
    secretSealed: text(),
    state: text(['active', 'invalid']).notNull(),
    invalidReason: text(),
    invalidatedAt: time(),
    /** When the device last reported the token: a 410 older than this is stale (APNs 410 `timestamp`). */
    reportedAt: time().notNull(),
    createdAt: time().notNull(),
  },
  (t) => [
    uniqueIndex('tokens_value').on(t.appId, t.kind, t.value).where(sql`kind <> 'apns_activity'`),
    uniqueIndex('tokens_activity_device').on(t.activityId, t.deviceId).where(sql`kind = 'apns_activity'`),
    index('tokens_device').on(t.deviceId, t.kind),
    // Web subscriptions by age: the expiry of those not registered again (issue 46 point 6).
    index('tokens_webpush_reported').on(t.appId, t.reportedAt).where(sql`kind = 'webpush_subscription'`),
  ],
);
