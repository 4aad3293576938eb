import type { TokenRow, TokensRepository } from '../../../modules/tokens/tokens.repository';
import { all, one, run, type Pg } from '../query';

const COLUMNS = `id, app_id AS "appId", kind, value, device_id AS "deviceId", activity_id AS "activityId", environment, state,
  invalid_reason AS "invalidReason", invalidated_at AS "invalidatedAt", reported_at AS "reportedAt", created_at AS "createdAt"`;
const NUMBERS = ['id', 'invalidatedAt', 'reportedAt', 'createdAt'];

/** The token ledger on PostgreSQL (see modules/tokens/tokens.repository.ts); `q` may be a transaction's. */
export function tokenStatementsPg(q: Pg): TokensRepository {
  return {
    async report(appId, kind, value, deviceId, environment, now) {
      const { id } = (await one<{ id: number }>(
        q,
        `INSERT INTO tokens (app_id, kind, value, device_id, environment, state, reported_at, created_at)
         VALUES ($1, $2, $3, $4, $5, 'active', $6, $6)
         ON CONFLICT (app_id, kind, value) WHERE kind <> 'apns_activity' DO UPDATE SET
           device_id = excluded.device_id, environment = excluded.environment, state = 'active',
           invalid_reason = NULL, invalidated_at = NULL, reported_at = excluded.reported_at
         RETURNING id`,
        [appId, kind, value, deviceId, environment, now],
        ['id'],
      ))!;
      if (kind === 'apns_push_to_start')
        await run(
          q,
          `UPDATE tokens SET state = 'invalid', invalid_reason = $3, invalidated_at = $4
            WHERE device_id = $1 AND kind = 'apns_push_to_start' AND value <> $2 AND state = 'active'`,
          [deviceId, value, 'replaced by a newer push-to-start token', now],
        );
      return id;
    },
    reportActivity: async (appId, activityId, deviceId, value, environment, now) =>
      (await one<{ id: number }>(
        q,
        `INSERT INTO tokens (app_id, kind, value, device_id, activity_id, environment, state, reported_at, created_at)
         VALUES ($1, 'apns_activity', $2, $3, $4, $5, 'active', $6, $6)
         ON CONFLICT (activity_id, device_id) WHERE kind = 'apns_activity' DO UPDATE SET
           value = excluded.value, environment = excluded.environment, state = 'active',
           invalid_reason = NULL, invalidated_at = NULL, reported_at = excluded.reported_at
         RETURNING id`,
        [appId, value, deviceId, activityId, environment, now],
        ['id'],
      ))!.id,
    invalidate: async (id, reason, now, since) =>
      (await run(
        q,
        `UPDATE tokens SET state = 'invalid', invalid_reason = $2, invalidated_at = $3
          WHERE id = $1 AND state = 'active' AND ($4::bigint IS NULL OR $4::bigint >= reported_at)`,
        [id, reason, now, since ?? null],
      )) > 0,
    async setEnvironment(deviceId, environment) {
      await run(q, 'UPDATE tokens SET environment = $1 WHERE device_id = $2', [environment, deviceId]);
    },
    activityToken: (activityId, deviceId) =>
      one<TokenRow>(q, `SELECT ${COLUMNS} FROM tokens WHERE activity_id = $1 AND device_id = $2 AND kind = 'apns_activity'`, [activityId, deviceId], NUMBERS),
    ofDevice: (deviceId) => all<TokenRow>(q, `SELECT ${COLUMNS} FROM tokens WHERE device_id = $1 ORDER BY id`, [deviceId], NUMBERS),
    find: (id) => one<TokenRow>(q, `SELECT ${COLUMNS} FROM tokens WHERE id = $1`, [id], NUMBERS),
  };
}
