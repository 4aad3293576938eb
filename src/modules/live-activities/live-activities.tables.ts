import { sql } from 'drizzle-orm';
import { bigint, defineTable, index, primaryKey, text, time } from '../../db/table';
import { apps } from '../apps/apps.tables';
import { devices } from '../devices/devices.tables';

export const { sqlite: activities, pg: activitiesPg } = defineTable(
  'activities',
  {
    id: text().primaryKey(),
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    endUserId: text().notNull(),
    templateSlug: text().notNull(),
    platform: text(['ios', 'android', 'web']).notNull(),
    /** Scheduled: a start waiting for its time (`startAt`, `startAtLocal`; scheduled-starts.tables.ts), nothing sent yet. */
    state: text(['Scheduled', 'Active', 'Ended']).notNull(),
    attributes: text().notNull(),
    contentState: text().notNull(),
    /**
     * The APNs `timestamp` (Unix seconds) of the activity's last queued event. The next one gets
     * max(now in seconds, this + 1), so events of one activity never tie even within one second.
     */
    lastTimestamp: bigint().notNull().default(0),
    /** When it started; while Scheduled, when it is due (set to the real start when it goes). */
    startedAt: time().notNull(),
    endedAt: time(),
    /** cancelled: a Scheduled start ended (DELETE) before its time; not_started: due, but it could not start (no device left, minutes used up, template gone). */
    endReason: text(['api', 'quota', 'expired', 'cancelled', 'not_started']),
  },
  (t) => [
    index('activities_app_started').on(t.appId, t.startedAt, t.id),
    index('activities_app_state').on(t.appId, t.state),
    // The console's delivery search by end user or device: their activities' deliveries.
    index('activities_app_user').on(t.appId, t.endUserId),
    // The scheduler's scans (iOS expiry, quota) look only at Active activities.
    index('activities_active_started').on(t.startedAt).where(sql`state = 'Active'`),
  ],
);

/**
 * One row per device an activity was started on: updates and the end go to each live instance
 * (iOS: at the instance's own update token in `tokens`), and the iOS 8-hour limit ends each iOS
 * instance on its own.
 */
export const { sqlite: activityInstances, pg: activityInstancesPg } = defineTable(
  'activity_instances',
  {
    activityId: text().notNull().references(() => activities.id, { onDelete: 'cascade' }),
    deviceId: text().notNull().references(() => devices.id, { onDelete: 'cascade' }),
    platform: text(['ios', 'android', 'web']).notNull(),
    startedAt: time().notNull(),
    /** Null while the instance is live. */
    endedAt: time(),
    /** What the app last reported of it (ActivityKit `activityStateUpdates`): dismissed or ended ends the instance. Null: nothing reported. */
    reportedState: text(['active', 'dismissed', 'ended']),
    /**
     * The sliding hour of `priority: "auto"` (issue 47): the times (ms, JSON array, oldest first) of the
     * priority-10 updates queued to this instance within the last hour, at most the budget's size.
     * Read and written in the update's unit of work, under the activity's row lock.
     */
    priority10Sent: text(),
  },
  (t) => [
    primaryKey(t.activityId, t.deviceId),
    // The console's delivery search by device: the activities that ran on it (written once per start, not per update).
    index('activity_instances_device').on(t.deviceId),
    // The iOS expiry scan looks only at live iOS instances.
    index('activity_instances_live_ios').on(t.startedAt).where(sql`ended_at IS NULL AND platform = 'ios'`),
  ],
);
