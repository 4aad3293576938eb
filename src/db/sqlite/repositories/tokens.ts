import type { Db } from '../database';
import type { TokenRow, TokenKind, Environment } from '../../../modules/tokens/tokens.repository';

/** SQL list of the kinds that are a device's registration (alert) token. */
export const DEVICE_KINDS_SQL = `('apns_device', 'fcm_registration')`;

const COLUMNS = `id, app_id AS appId, kind, value, device_id AS deviceId, activity_id AS activityId, environment, state,
  invalid_reason AS invalidReason, invalidated_at AS invalidatedAt, reported_at AS reportedAt, created_at AS createdAt`;

/**
 * The token ledger's statements. A report (re)activates a token and stamps `reported_at`; a
 * provider's refusal invalidates one token by id, never a whole device. Callers hold the
 * transaction when several statements must go together. Exported synchronous for the SQLite
 * repositories whose statements join the ledger's (deliveries, devices).
 */
export function tokensStatements(db: Db) {
  const client = db.$client;
  // A device token or push-to-start token is one row per app, kind and value: reporting it from
  // another device row moves it there (device_id is updated), so it never sits on two devices.
  const upsertValue = client.query<{ id: number }, [string, string, string, string, string | null, number]>(
    `INSERT INTO tokens (app_id, kind, value, device_id, environment, state, reported_at, created_at)
     VALUES (?1, ?2, ?3, ?4, ?5, 'active', ?6, ?6)
     ON CONFLICT (app_id, kind, value) WHERE kind <> 'apns_activity' DO UPDATE SET
       device_id = excluded.device_id, environment = excluded.environment, state = 'active',
       invalid_reason = NULL, invalidated_at = NULL, reported_at = excluded.reported_at
     RETURNING id`,
  );
  // An activity's update token is one row per activity and device; iOS may rotate it, so a new value replaces the old.
  const upsertActivity = client.query<{ id: number }, [string, string, string, string, string | null, number]>(
    `INSERT INTO tokens (app_id, kind, value, device_id, activity_id, environment, state, reported_at, created_at)
     VALUES (?1, 'apns_activity', ?2, ?3, ?4, ?5, 'active', ?6, ?6)
     ON CONFLICT (activity_id, device_id) WHERE kind = 'apns_activity' DO UPDATE SET
       value = excluded.value, environment = excluded.environment, state = 'active',
       invalid_reason = NULL, invalidated_at = NULL, reported_at = excluded.reported_at
     RETURNING id`,
  );
  const retireOtherPushToStart = client.query<never, [string, string, string, number]>(
    `UPDATE tokens SET state = 'invalid', invalid_reason = ?3, invalidated_at = ?4
      WHERE device_id = ?1 AND kind = 'apns_push_to_start' AND value <> ?2 AND state = 'active'`,
  );
  // A refusal counts only if the provider decided after the device last reported the token.
  const invalidate = client.query<never, [number, string, number, number | null]>(
    `UPDATE tokens SET state = 'invalid', invalid_reason = ?2, invalidated_at = ?3
      WHERE id = ?1 AND state = 'active' AND (?4 IS NULL OR ?4 >= reported_at)`,
  );
  const setEnvironment = client.query<never, [string | null, string]>(`UPDATE tokens SET environment = ?1 WHERE device_id = ?2`);
  const activityToken = client.query<TokenRow, [string, string]>(
    `SELECT ${COLUMNS} FROM tokens WHERE activity_id = ? AND device_id = ? AND kind = 'apns_activity'`,
  );
  const ofDevice = client.query<TokenRow, [string]>(`SELECT ${COLUMNS} FROM tokens WHERE device_id = ? ORDER BY id`);
  const byId = client.query<TokenRow, [number]>(`SELECT ${COLUMNS} FROM tokens WHERE id = ?`);

  return {
    /** Records a device's registration token or push-to-start token as reported now; returns its id. */
    report(appId: string, kind: Exclude<TokenKind, 'apns_activity'>, value: string, deviceId: string, environment: Environment | null, now: number): number {
      const id = upsertValue.get(appId, kind, value, deviceId, environment, now)!.id;
      // One push-to-start token per device: an older one the device no longer reports is retired.
      if (kind === 'apns_push_to_start') retireOtherPushToStart.run(deviceId, value, 'replaced by a newer push-to-start token', now);
      return id;
    },

    /** Records the update token of an activity on one device; returns its id. */
    reportActivity(appId: string, activityId: string, deviceId: string, value: string, environment: Environment | null, now: number): number {
      return upsertActivity.get(appId, value, deviceId, activityId, environment, now)!.id;
    },

    /**
     * Marks one token invalid. `since` is when the provider last found it invalid (APNs 410
     * `timestamp`): if the device reported the token after that, the refusal is stale and ignored.
     * Returns whether the token was invalidated.
     */
    invalidate(id: number, reason: string, now: number, since?: number): boolean {
      return invalidate.run(id, reason, now, since ?? null).changes > 0;
    },

    /** Moves every token of a device to the environment it now declares (null: the app's default). */
    setEnvironment(deviceId: string, environment: Environment | null): void {
      setEnvironment.run(environment, deviceId);
    },

    activityToken(activityId: string, deviceId: string): TokenRow | undefined {
      return activityToken.get(activityId, deviceId) ?? undefined;
    },

    ofDevice(deviceId: string): TokenRow[] {
      return ofDevice.all(deviceId);
    },

    find(id: number): TokenRow | undefined {
      return byId.get(id) ?? undefined;
    },
  };
}
