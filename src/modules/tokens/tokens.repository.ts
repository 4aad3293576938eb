import type { Environment, TokenKind, TokenRow } from './tokens.types';
import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';

/** SQL list of the kinds that are a device's registration (alert) token. */
export const DEVICE_KINDS_SQL = `('apns_device', 'fcm_registration', 'webpush_subscription')`;

const COLUMNS = `id, app_id AS "appId", kind, value, device_id AS "deviceId", activity_id AS "activityId", attributes_type AS "attributesType", secret_sealed AS "secretSealed", environment, state,
  invalid_reason AS "invalidReason", invalidated_at AS "invalidatedAt", reported_at AS "reportedAt", created_at AS "createdAt"`;
const SHAPE = { numbers: ['id', 'invalidatedAt', 'reportedAt', 'createdAt'] };
const ID = { numbers: ['id'] };

// A device token or push-to-start token is one row per app, kind and value: reporting it from
// another device row moves it there (device_id is updated), so it never sits on two devices.
const upsertValue = statement<{ id: number }>(
  `INSERT INTO tokens (app_id, kind, value, device_id, environment, state, reported_at, created_at, attributes_type)
   VALUES ($1, $2, $3, $4, $5, 'active', $6, $6, $7)
   ON CONFLICT (app_id, kind, value) WHERE kind <> 'apns_activity' DO UPDATE SET
     device_id = excluded.device_id, environment = excluded.environment, attributes_type = excluded.attributes_type, state = 'active',
     invalid_reason = NULL, invalidated_at = NULL, reported_at = excluded.reported_at
   RETURNING id`,
  ID,
);
// An activity's update token is one row per activity and device; iOS may rotate it, so a new value replaces the old.
const upsertActivity = statement<{ id: number }>(
  `INSERT INTO tokens (app_id, kind, value, device_id, activity_id, environment, state, reported_at, created_at)
   VALUES ($1, 'apns_activity', $2, $3, $4, $5, 'active', $6, $6)
   ON CONFLICT (activity_id, device_id) WHERE kind = 'apns_activity' DO UPDATE SET
     value = excluded.value, environment = excluded.environment, state = 'active',
     invalid_reason = NULL, invalidated_at = NULL, reported_at = excluded.reported_at
   RETURNING id`,
  ID,
);
// One push-to-start token per device and attributes type (null: IsletActivityAttributes).
const retireOtherPushToStart = statement(
  (d) => `UPDATE tokens SET state = 'invalid', invalid_reason = $3, invalidated_at = $4
           WHERE device_id = $1 AND kind = 'apns_push_to_start' AND ${d.same('attributes_type', d.typed('$5', 'text'))} AND value <> $2 AND state = 'active'`,
);
// One widget push token per device: WidgetKit hands the device a new one when it changes.
const retireOtherOfKind = statement(
  `UPDATE tokens SET state = 'invalid', invalid_reason = $3, invalidated_at = $4 WHERE device_id = $1 AND kind = $5 AND value <> $2 AND state = 'active'`,
);
// A device's control push tokens are the set it last reported (one per control with a push handler): the others are retired.
const retireControlsBut = statement(
  (d) => `UPDATE tokens SET state = 'invalid', invalid_reason = $3, invalidated_at = $4 WHERE device_id = $1 AND kind = 'apns_control' AND state = 'active' AND ${d.notInList('value', '$2')}`,
);
const activeOfKind = statement<{ deviceId: string; id: number }>(
  (d) => `SELECT device_id AS "deviceId", id FROM tokens WHERE ${d.inList('device_id', '$1')} AND kind = $2 AND state = 'active'`,
  ID,
);
const pushToStartFor = statement<{ deviceId: string; id: number }>(
  (d) => `SELECT device_id AS "deviceId", id FROM tokens
           WHERE ${d.inList('device_id', '$1')} AND kind = 'apns_push_to_start' AND attributes_type = $2 AND state = 'active'`,
  ID,
);
// A refusal counts only if the provider decided after the device last reported the token.
const invalidate = statement(
  (d) => `UPDATE tokens SET state = 'invalid', invalid_reason = $2, invalidated_at = $3
           WHERE id = $1 AND state = 'active' AND (${d.typed('$4', 'bigint')} IS NULL OR ${d.typed('$4', 'bigint')} >= reported_at)`,
);
const setSecret = statement('UPDATE tokens SET secret_sealed = $1 WHERE id = $2');
const setEnvironment = statement('UPDATE tokens SET environment = $1 WHERE device_id = $2');
const activityToken = statement<TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE activity_id = $1 AND device_id = $2 AND kind = 'apns_activity'`, SHAPE);
const ofDevice = statement<TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE device_id = $1 ORDER BY id`, SHAPE);
const byId = statement<TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE id = $1`, SHAPE);

/**
 * The token ledger. A report (re)activates a token and stamps `reported_at`; a provider's refusal
 * invalidates one token by id, never a whole device. Callers hold the transaction when several
 * statements must go together (the devices and deliveries repositories use it on theirs).
 */
export const tokensRepository = repository((sql: Sql) => {
  return {
    /**
     * Records a device's registration token or push-to-start token as reported now; returns its id.
     * `attributesType`: the app-defined ActivityAttributes type a push-to-start token starts
     * (absent: IsletActivityAttributes); a device keeps one active push-to-start token per type.
     */
    async report(appId: string, kind: Exclude<TokenKind, 'apns_activity'>, value: string, deviceId: string, environment: Environment | null, now: number, attributesType: string | null = null): Promise<number> {
      const type = kind === 'apns_push_to_start' ? attributesType : null;
      const { id } = (await sql.one(upsertValue, [appId, kind, value, deviceId, environment, now, type]))!;
      // One push-to-start token per device and type: an older one the device no longer reports is retired.
      if (kind === 'apns_push_to_start') await sql.run(retireOtherPushToStart, [deviceId, value, 'replaced by a newer push-to-start token', now, type]);
      if (kind === 'apns_widget') await sql.run(retireOtherOfKind, [deviceId, value, 'replaced by a newer token', now, kind]);
      return id;
    },
    /** Stores a token's sealed secret part (a web subscription's keys). */
    setSecret: async (id: number, sealed: string): Promise<void> => void (await sql.run(setSecret, [sealed, id])),
    /** The active push-to-start tokens of an app-defined attributes type among these devices. */
    pushToStartFor: (deviceIds: readonly string[], attributesType: string): Promise<{ deviceId: string; id: number }[]> => sql.all(pushToStartFor, [deviceIds, attributesType]),
    /** Retires the device's active control push tokens that are not among `values` (the set it reports now). */
    retireControlsBut: async (deviceId: string, values: readonly string[], now: number): Promise<void> => void (await sql.run(retireControlsBut, [deviceId, values, 'no longer reported by the device', now])),
    /** The active tokens of one kind (a widget or control push token) among these devices. */
    activeOfKind: (deviceIds: readonly string[], kind: 'apns_widget' | 'apns_control'): Promise<{ deviceId: string; id: number }[]> => sql.all(activeOfKind, [deviceIds, kind]),
    /** Records the update token of an activity on one device; returns its id. */
    reportActivity: async (appId: string, activityId: string, deviceId: string, value: string, environment: Environment | null, now: number): Promise<number> =>
      (await sql.one(upsertActivity, [appId, value, deviceId, activityId, environment, now]))!.id,
    /**
     * Marks one token invalid. `since` is when the provider last found it invalid (APNs 410
     * `timestamp`): if the device reported the token after that, the refusal is stale and ignored.
     * Returns whether the token was invalidated.
     */
    invalidate: async (id: number, reason: string, now: number, since?: number): Promise<boolean> => (await sql.run(invalidate, [id, reason, now, since ?? null])) > 0,
    /** Moves every token of a device to the environment it now declares (null: the app's default). */
    async setEnvironment(deviceId: string, environment: Environment | null): Promise<void> {
      await sql.run(setEnvironment, [environment, deviceId]);
    },
    activityToken: (activityId: string, deviceId: string): Promise<TokenRow | undefined> => sql.one(activityToken, [activityId, deviceId]),
    ofDevice: (deviceId: string): Promise<TokenRow[]> => sql.all(ofDevice, [deviceId]),
    find: (id: number): Promise<TokenRow | undefined> => sql.one(byId, [id]),
  };
});

export type TokensRepository = ReturnType<typeof tokensRepository>;
