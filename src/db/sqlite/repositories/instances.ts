import type { Db } from '../database';
import { promised } from '../promised';
import { DEVICE_KINDS_SQL } from './tokens';
import type { NewInstance, InstanceTarget, InstanceDetail, InstancesRepository } from '../../../modules/live-activities/instances.repository';

const INSERT_BATCH = 100;

/** Storage of activity instances: one per device an activity was started on. */
function instancesStatements(db: Db) {
  const client = db.$client;
  const insertSql = (rows: number) =>
    `INSERT OR IGNORE INTO activity_instances (activity_id, device_id, platform, started_at) VALUES ${Array(rows).fill('(?, ?, ?, ?)').join(', ')}`;
  const insertBatch = client.query<never, (string | number)[]>(insertSql(INSERT_BATCH));
  const values = (r: NewInstance) => [r.activityId, r.deviceId, r.platform, r.startedAt];
  const live = client.query<InstanceTarget, [string]>(
    `SELECT i.device_id AS deviceId, i.platform,
            (SELECT t.id FROM tokens t WHERE t.device_id = i.device_id AND t.kind IN ${DEVICE_KINDS_SQL} AND t.state = 'active') AS deviceTokenId,
            a.id AS activityTokenId, a.state AS activityTokenState
       FROM activity_instances i
       LEFT JOIN tokens a ON a.activity_id = i.activity_id AND a.device_id = i.device_id AND a.kind = 'apns_activity'
      WHERE i.activity_id = ? AND i.ended_at IS NULL
      ORDER BY i.started_at, i.device_id`,
  );
  const oldestLiveIos = client.query<{ at: number | null }, [string]>(
    `SELECT MIN(started_at) AS at FROM activity_instances WHERE activity_id = ? AND ended_at IS NULL AND platform = 'ios'`,
  );
  const endAll = client.query<{ deviceId: string }, [number, string]>(
    `UPDATE activity_instances SET ended_at = ? WHERE activity_id = ? AND ended_at IS NULL RETURNING device_id AS deviceId`,
  );
  const endOne = client.query<{ deviceId: string }, [number, string, string]>(
    `UPDATE activity_instances SET ended_at = ? WHERE activity_id = ? AND device_id = ? AND ended_at IS NULL RETURNING device_id AS deviceId`,
  );
  const any = client.query<{ yes: number }, [string]>(`SELECT 1 AS yes FROM activity_instances WHERE activity_id = ? LIMIT 1`);
  const dueIos = client.query<{ activityId: string; deviceId: string }, [number]>(
    `SELECT i.activity_id AS activityId, i.device_id AS deviceId FROM activity_instances i
      WHERE i.ended_at IS NULL AND i.platform = 'ios' AND i.started_at <= ? ORDER BY i.activity_id`,
  );
  const detail = client.query<InstanceDetail, [string]>(
    `SELECT i.device_id AS deviceId, i.platform, i.started_at AS startedAt, i.ended_at AS endedAt,
            t.state AS tokenState, t.invalid_reason AS tokenInvalidReason,
            d.status AS lastDeliveryStatus, d.reason AS lastDeliveryReason, d.updated_at AS lastDeliveryAt
       FROM activity_instances i
       LEFT JOIN tokens t ON t.device_id = i.device_id AND (
            (i.platform = 'ios' AND t.kind = 'apns_activity' AND t.activity_id = i.activity_id) OR
            (i.platform = 'android' AND t.kind = 'fcm_registration'))
       LEFT JOIN deliveries d ON d.id = (SELECT max(id) FROM deliveries WHERE activity_id = i.activity_id AND device_id = i.device_id)
      WHERE i.activity_id = ? ORDER BY i.started_at, i.device_id`,
  );

  return {
    /** Writes instances (many rows per statement); one already there is kept. The caller holds the transaction. */
    insert(rows: readonly NewInstance[]): void {
      let i = 0;
      for (; i + INSERT_BATCH <= rows.length; i += INSERT_BATCH) insertBatch.run(...rows.slice(i, i + INSERT_BATCH).flatMap(values));
      if (i < rows.length) client.query(insertSql(rows.length - i)).run(...rows.slice(i).flatMap(values));
    },

    /** The activity's live instances with their tokens, oldest first. */
    live(activityId: string): InstanceTarget[] {
      return live.all(activityId);
    },

    /** When the oldest live iOS instance of the activity started (the 8-hour limit runs from it); null without one. */
    oldestLiveIos(activityId: string): number | null {
      return oldestLiveIos.get(activityId)?.at ?? null;
    },

    /** Ends the live instances of an activity (all, or those of the given devices); answers the devices of those it ended. */
    end(activityId: string, at: number, deviceIds?: readonly string[]): string[] {
      if (!deviceIds) return endAll.all(at, activityId).map((r) => r.deviceId);
      return deviceIds.flatMap((deviceId) => endOne.all(at, activityId, deviceId).map((r) => r.deviceId));
    },

    /** Whether the activity was started on any device (live or ended): only then are its minutes billed. */
    any(activityId: string): boolean {
      return any.get(activityId) !== null;
    },

    /** Live iOS instances started at or before `cutoff`. */
    dueIos(cutoff: number): { activityId: string; deviceId: string }[] {
      return dueIos.all(cutoff);
    },

    detail(activityId: string): InstanceDetail[] {
      return detail.all(activityId);
    },
  };
}

/** The repository over instancesStatements: every method returns a Promise. */
export const instancesRepository = (db: Db): InstancesRepository => promised(instancesStatements(db));
