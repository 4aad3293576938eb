import { boolean, defineTable, index, text, time, uniqueIndex } from '../../db/table';
import { apps } from '../apps/apps.tables';

export const { sqlite: devices, pg: devicesPg } = defineTable(
  'devices',
  {
    id: text().primaryKey(),
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    endUserId: text().notNull(),
    platform: text(['ios', 'android', 'web']).notNull(),
    /**
     * The token the device registered with: the row's identity (one device per app, platform and
     * token). A web device's is its subscription's endpoint URL (so the same endpoint registered
     * again updates the row); its keys are in its `webpush_subscription` token, sealed. Whether it is still valid, and every other token of the device, is in `tokens`.
     */
    token: text().notNull(),
    /** The APNs environment the device declared; null: the app's default (its APNs `environment`). */
    environment: text(['production', 'sandbox']),
    /** The OS version the device registered (`18.2`), if it did: broadcasts start only on iOS 18+. */
    osVersion: text(),
    /** The device's BCP 47 language tag (`de-AT`), canonical case, if it reported one: a localized template's text is chosen by it. */
    locale: text(),
    /** The device's IANA time zone (`Europe/Vienna`), if it reported one: a `sendAtLocal` reaches it at that wall time there. */
    timeZone: text(),
    /** iOS: what the app last reported of `ActivityAuthorizationInfo().frequentPushesEnabled` (issue 47); null: never reported. */
    frequentPushesEnabled: boolean(),
    createdAt: time().notNull(),
    updatedAt: time().notNull(),
  },
  (t) => [
    uniqueIndex('devices_app_platform_token').on(t.appId, t.platform, t.token),
    index('devices_app_user').on(t.appId, t.endUserId),
  ],
);
