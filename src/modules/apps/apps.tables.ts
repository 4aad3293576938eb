import { defineTable, integer, text, time } from '../../db/table';

/**
 * The apps Islet serves. Secrets are stored sealed (AES-256-GCM, see lib/secrets.ts); the App
 * Secret also as a SHA-256 hash so that authenticating a request needs no decryption.
 */
export const { sqlite: apps, pg: appsPg } = defineTable('apps', {
  id: text().primaryKey(),
  name: text().notNull(),
  plan: text().notNull(),
  appSecretHash: text().notNull(),
  appSecretSealed: text().notNull(),
  signingSecretSealed: text().notNull(),
  /** Sealed JSON of ApnsCredentials (lib/../delivery), null when the app has none. */
  apnsSealed: text(),
  /** Sealed JSON of FcmCredentials, null when the app has none. */
  fcmSealed: text(),
  /** Set when a provider refused the credentials: delivery on that channel waits for new ones. */
  apnsPausedReason: text(),
  fcmPausedReason: text(),
  /** `config` when declared in the TOML file, `api` when made through the admin API or console. */
  source: text(['config', 'api']).notNull(),
  /** The IANA zone a `sendAtLocal` uses for the app's devices that reported none; null: UTC. */
  defaultTimeZone: text(),
  /**
   * The Live Activity budget `priority: "auto"` keeps to (issue 47): priority-10 updates per activity
   * per device in a sliding hour, and for a device that reported frequent pushes allowed; null: the
   * defaults (live-activities/priority-budget/budget-settings.ts).
   */
  laPriority10PerHour: integer(),
  laFrequentPriority10PerHour: integer(),
  /** JSON `{start, end}` (`HH:MM`): plain notifications wait while a device's local time is inside (lib/delivery-limits.ts); null: none. */
  quietHours: text(),
  /** JSON `{count, perHours}`: the most plain notifications an end user gets in that many hours; null: no cap. */
  frequencyCap: text(),
  createdAt: time().notNull(),
  updatedAt: time().notNull(),
});
