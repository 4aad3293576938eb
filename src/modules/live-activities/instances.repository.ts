import type { InstanceDetail, InstanceTarget, NewInstance } from './instances.types';
import type { Sql } from '../../db/sql/sql';
import { oneOff, statement, valuesList } from '../../db/sql/statement';
import { DEVICE_KINDS_SQL } from '../tokens/tokens.repository';
import { repository } from '../../db/sql/repository';

/** Rows per INSERT of a start to many devices: full batches use one prepared statement. */
const INSERT_BATCH = 100;

const insertSql = (rows: number) =>
  `INSERT INTO activity_instances (activity_id, device_id, platform, started_at) VALUES ${valuesList(rows, 4)} ON CONFLICT DO NOTHING`;
const insertBatch = statement(insertSql(INSERT_BATCH));
/** The live instances of the activity `activityId` names (a parameter, or a column of an outer query), oldest first. */
export const liveInstancesSql = (activityId: string) =>
  `SELECT i.device_id AS "deviceId", i.platform,
          (SELECT t.id FROM tokens t WHERE t.device_id = i.device_id AND t.kind IN ${DEVICE_KINDS_SQL} AND t.state = 'active') AS "deviceTokenId",
          a.id AS "activityTokenId", a.state AS "activityTokenState",
          i.priority10_sent AS "priority10Sent", d.frequent_pushes_enabled AS "frequentPushesEnabled"
     FROM activity_instances i
     JOIN devices d ON d.id = i.device_id
     LEFT JOIN tokens a ON a.activity_id = i.activity_id AND a.device_id = i.device_id AND a.kind = 'apns_activity'
    WHERE i.activity_id = ${activityId} AND i.ended_at IS NULL
    ORDER BY i.started_at, i.device_id`;
const live = statement<InstanceTarget>(liveInstancesSql('$1'), { numbers: ['deviceTokenId', 'activityTokenId'], booleans: ['frequentPushesEnabled'] });
const oldestLiveIos = statement<{ at: number | null }>(
  `SELECT MIN(started_at) AS at FROM activity_instances WHERE activity_id = $1 AND ended_at IS NULL AND platform = 'ios'`,
  { numbers: ['at'] },
);
const endAll = statement<{ deviceId: string }>(
  'UPDATE activity_instances SET ended_at = $1 WHERE activity_id = $2 AND ended_at IS NULL RETURNING device_id AS "deviceId"',
);
const endSome = statement<{ deviceId: string }>(
  (d) =>
    `UPDATE activity_instances SET ended_at = $1 WHERE activity_id = $2 AND ${d.inList('device_id', '$3')} AND ended_at IS NULL RETURNING device_id AS "deviceId"`,
);
const any = statement('SELECT 1 AS yes FROM activity_instances WHERE activity_id = $1 LIMIT 1');
const dueIos = statement<{ activityId: string; deviceId: string }>(
  `SELECT i.activity_id AS "activityId", i.device_id AS "deviceId" FROM activity_instances i
    WHERE i.ended_at IS NULL AND i.platform = 'ios' AND i.started_at <= $1 ORDER BY i.activity_id`,
);
const detail = statement<InstanceDetail>(
  `SELECT i.device_id AS "deviceId", i.platform, i.started_at AS "startedAt", i.ended_at AS "endedAt",
          i.reported_state AS "reportedState", t.state AS "tokenState", t.invalid_reason AS "tokenInvalidReason",
          d.status AS "lastDeliveryStatus", d.reason AS "lastDeliveryReason", d.updated_at AS "lastDeliveryAt"
     FROM activity_instances i
     LEFT JOIN tokens t ON t.device_id = i.device_id AND (
          (i.platform = 'ios' AND t.kind = 'apns_activity' AND t.activity_id = i.activity_id) OR
          (i.platform = 'android' AND t.kind = 'fcm_registration') OR
          (i.platform = 'web' AND t.kind = 'webpush_subscription'))
     LEFT JOIN deliveries d ON d.id = (SELECT max(id) FROM deliveries WHERE activity_id = i.activity_id AND device_id = i.device_id)
    WHERE i.activity_id = $1 ORDER BY i.started_at, i.device_id`,
  { numbers: ['startedAt', 'endedAt', 'lastDeliveryAt'] },
);

const values = (r: NewInstance) => [r.activityId, r.deviceId, r.platform, r.startedAt];

/** Activity instances: one per device an activity was started on. */
export const instancesRepository = repository((sql: Sql) => {
  return {
    /** Writes instances (many rows per statement); one already there is kept. The caller holds the transaction. */
    async insert(rows: readonly NewInstance[]): Promise<void> {
      let i = 0;
      for (; i + INSERT_BATCH <= rows.length; i += INSERT_BATCH) await sql.run(insertBatch, rows.slice(i, i + INSERT_BATCH).flatMap(values));
      if (i < rows.length) await sql.run(oneOff(insertSql(rows.length - i)), rows.slice(i).flatMap(values));
    },
    /** The activity's live instances with their tokens, oldest first. */
    live: (activityId: string): Promise<InstanceTarget[]> => sql.all(live, [activityId]),
    /** When the oldest live iOS instance of the activity started (the 8-hour limit runs from it); null without one. */
    oldestLiveIos: async (activityId: string): Promise<number | null> => (await sql.one(oldestLiveIos, [activityId]))?.at ?? null,
    /**
     * Ends the live instances of an activity (all, or those of the given devices) and answers the
     * devices of those it ended: not those already ended, also by a concurrent unit of work that
     * committed first (PostgreSQL re-checks `ended_at IS NULL` once the row lock is its).
     */
    end: async (activityId: string, at: number, deviceIds?: readonly string[]): Promise<string[]> =>
      (await (deviceIds ? sql.all(endSome, [at, activityId, [...deviceIds]]) : sql.all(endAll, [at, activityId]))).map((r) => r.deviceId),
    /** Whether the activity was started on any device (live or ended): only then are its minutes billed. */
    any: async (activityId: string): Promise<boolean> => (await sql.one(any, [activityId])) !== undefined,
    /** Live iOS instances started at or before `cutoff`. */
    dueIos: (cutoff: number): Promise<{ activityId: string; deviceId: string }[]> => sql.all(dueIos, [cutoff]),
    detail: (activityId: string): Promise<InstanceDetail[]> => sql.all(detail, [activityId]),
  };
});

export type InstancesRepository = ReturnType<typeof instancesRepository>;
