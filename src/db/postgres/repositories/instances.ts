import { DEVICE_KINDS_SQL } from '../../sqlite/repositories/tokens';
import type { InstanceDetail, InstancesRepository, InstanceTarget, NewInstance } from '../../../modules/live-activities/instances.repository';
import { all, one, run, valuesList, type PgScope } from '../query';

const INSERT_BATCH = 100;

/** Activity instances on PostgreSQL. */
export function instancesPg({ q }: PgScope): InstancesRepository {
  const values = (r: NewInstance) => [r.activityId, r.deviceId, r.platform, r.startedAt];
  return {
    async insert(rows) {
      for (let i = 0; i < rows.length; i += INSERT_BATCH) {
        const batch = rows.slice(i, i + INSERT_BATCH);
        await run(q, `INSERT INTO activity_instances (activity_id, device_id, platform, started_at) VALUES ${valuesList(batch.length, 4)} ON CONFLICT DO NOTHING`, batch.flatMap(values));
      }
    },
    live: (activityId) =>
      all<InstanceTarget>(
        q,
        `SELECT i.device_id AS "deviceId", i.platform,
                (SELECT t.id FROM tokens t WHERE t.device_id = i.device_id AND t.kind IN ${DEVICE_KINDS_SQL} AND t.state = 'active') AS "deviceTokenId",
                a.id AS "activityTokenId", a.state AS "activityTokenState"
           FROM activity_instances i
           LEFT JOIN tokens a ON a.activity_id = i.activity_id AND a.device_id = i.device_id AND a.kind = 'apns_activity'
          WHERE i.activity_id = $1 AND i.ended_at IS NULL
          ORDER BY i.started_at, i.device_id`,
        [activityId],
        ['deviceTokenId', 'activityTokenId'],
      ),
    oldestLiveIos: async (activityId) =>
      (await one<{ at: number | null }>(
        q,
        `SELECT MIN(started_at) AS at FROM activity_instances WHERE activity_id = $1 AND ended_at IS NULL AND platform = 'ios'`,
        [activityId],
        ['at'],
      ))?.at ?? null,
    end: async (activityId, at, deviceIds) =>
      (
        await (deviceIds
          ? all<{ deviceId: string }>(
              q,
              'UPDATE activity_instances SET ended_at = $1 WHERE activity_id = $2 AND device_id = ANY($3::text[]) AND ended_at IS NULL RETURNING device_id AS "deviceId"',
              [at, activityId, [...deviceIds]],
            )
          : all<{ deviceId: string }>(q, 'UPDATE activity_instances SET ended_at = $1 WHERE activity_id = $2 AND ended_at IS NULL RETURNING device_id AS "deviceId"', [at, activityId]))
      ).map((r) => r.deviceId),
    any: async (activityId) => (await one(q, 'SELECT 1 AS yes FROM activity_instances WHERE activity_id = $1 LIMIT 1', [activityId])) !== undefined,
    dueIos: (cutoff) =>
      all<{ activityId: string; deviceId: string }>(
        q,
        `SELECT i.activity_id AS "activityId", i.device_id AS "deviceId" FROM activity_instances i
          WHERE i.ended_at IS NULL AND i.platform = 'ios' AND i.started_at <= $1 ORDER BY i.activity_id`,
        [cutoff],
      ),
    detail: (activityId) =>
      all<InstanceDetail>(
        q,
        `SELECT i.device_id AS "deviceId", i.platform, i.started_at AS "startedAt", i.ended_at AS "endedAt",
                t.state AS "tokenState", t.invalid_reason AS "tokenInvalidReason",
                d.status AS "lastDeliveryStatus", d.reason AS "lastDeliveryReason", d.updated_at AS "lastDeliveryAt"
           FROM activity_instances i
           LEFT JOIN tokens t ON t.device_id = i.device_id AND (
                (i.platform = 'ios' AND t.kind = 'apns_activity' AND t.activity_id = i.activity_id) OR
                (i.platform = 'android' AND t.kind = 'fcm_registration'))
           LEFT JOIN deliveries d ON d.id = (SELECT max(id) FROM deliveries WHERE activity_id = i.activity_id AND device_id = i.device_id)
          WHERE i.activity_id = $1 ORDER BY i.started_at, i.device_id`,
        [activityId],
        ['startedAt', 'endedAt', 'lastDeliveryAt'],
      ),
  };
}
