import type { Sql } from '../../../db/sql/sql';
import { statement } from '../../../db/sql/statement';
import { repository } from '../../../db/sql/repository';

const spend = statement('UPDATE activity_instances SET priority10_sent = $3 WHERE activity_id = $1 AND device_id = $2');
const report = statement<{ deviceId: string }>(
  'UPDATE activity_instances SET reported_state = $3 WHERE activity_id = $1 AND device_id = $2 RETURNING device_id AS "deviceId"',
);
const frequent = statement('UPDATE devices SET frequent_pushes_enabled = $2, updated_at = $3 WHERE id = $1');

/** The sliding hours of `priority: "auto"` and what apps report of their activities (issue 47). */
export const priorityBudgetRepository = repository((sql: Sql) => ({
  /** Stores an instance's sliding hour after a priority-10 update was queued to it. */
  spend: (activityId: string, deviceId: string, window: string): Promise<number> => sql.run(spend, [activityId, deviceId, window]),
  /** Records the state the app reported for its instance; false when the device has no instance of the activity. */
  reportState: async (activityId: string, deviceId: string, state: 'active' | 'dismissed' | 'ended'): Promise<boolean> =>
    (await sql.all(report, [activityId, deviceId, state])).length > 0,
  /** Records what the device's app reported of `frequentPushesEnabled`. */
  setFrequentPushes: (deviceId: string, enabled: boolean, now: number): Promise<number> => sql.run(frequent, [deviceId, enabled, now]),
}));
