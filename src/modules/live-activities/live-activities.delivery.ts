import type { Db } from '../../db/database';
import { enqueue, type DeliveryTarget } from '../delivery/outbox';
import { devicesRepository, type TargetDevice } from '../devices/devices.repository';
import { activityContent } from './live-activities.content';
import type { ActivityRow } from './live-activities.repository';

export const NO_PUSH_TO_START_TOKEN = 'device has no push-to-start token';

/**
 * Where a start goes: every valid device of the end user. An iOS device is started through its
 * push-to-start token; one without it cannot be, and its delivery is recorded as failed so the
 * console shows why.
 */
export function startTargets(devices: readonly TargetDevice[]): DeliveryTarget[] {
  return devices.map((d) =>
    d.platform === 'ios' && !d.pushToStartToken ? { deviceId: d.id, status: 'failed', reason: NO_PUSH_TO_START_TOKEN } : { deviceId: d.id },
  );
}

/**
 * Where an update or end goes: each valid Android device of the end user, and one iOS device (the
 * most recently registered) because every iOS update goes to the activity's single per-activity
 * token; sending once per iOS device would repeat the same push. Until that token is reported the
 * iOS delivery is held (latest wins) and released when it arrives — when the app has APNs
 * credentials: without them the simulator records what would be sent, and there is no device
 * that could ever report a token.
 * @param devices the end user's valid devices, oldest first
 */
export function followUpTargets(devices: readonly TargetDevice[], pushToken: string | null, apnsConfigured: boolean): DeliveryTarget[] {
  const targets: DeliveryTarget[] = devices.filter((d) => d.platform === 'android').map((d) => ({ deviceId: d.id }));
  const ios = devices.findLast((d) => d.platform === 'ios');
  if (ios) targets.push(pushToken || !apnsConfigured ? { deviceId: ios.id } : { deviceId: ios.id, status: 'held' });
  return targets;
}

/** Whether the app delivers to APNs for real (has credentials) rather than to the simulator. */
export function hasApnsCredentials(db: Db, appId: string): boolean {
  return db.$client.query<{ yes: number }, [string]>('SELECT apns_sealed IS NOT NULL AS yes FROM apps WHERE id = ?').get(appId)?.yes === 1;
}

/** A time given once for all activities, or per activity (e.g. startedAt + 8 h for iOS expiry). */
export type PerActivity = number | ((row: ActivityRow) => number);

export interface EndOptions {
  /** api: DELETE by the app; quota: minutes used up; expired: iOS 8-hour limit. */
  reason: NonNullable<ActivityRow['endReason']>;
  endedAt: PerActivity;
  /** When the device removes the activity from the Lock Screen (now for an API end). */
  dismissalAt: PerActivity;
  /** When this happens: the time of the queued pushes. */
  now: number;
}

/**
 * Marks Active activities Ended and queues their end pushes, all in one transaction (nested
 * inside the caller's when there is one). Activities that are no longer Active when the
 * transaction runs are skipped, so an API end and the scheduler never end one twice.
 * Returns the activities it ended, as they now are.
 * @example endActivities(db, expired, { reason: 'expired', endedAt: (a) => a.startedAt + 8 * HOUR, dismissalAt: (a) => a.startedAt + 12 * HOUR, now })
 */
export function endActivities(db: Db, rows: readonly ActivityRow[], options: EndOptions): ActivityRow[] {
  const at = (value: PerActivity, row: ActivityRow) => (typeof value === 'function' ? value(row) : value);
  const client = db.$client;
  return client.transaction(() => {
    const markEnded = client.query<never, [number, string, string]>(
      `UPDATE activities SET state = 'Ended', ended_at = ?, end_reason = ? WHERE id = ? AND state = 'Active'`,
    );
    const devicesOf = userDevices(db, rows);
    const ended: ActivityRow[] = [];
    for (const row of rows) {
      const endedAt = at(options.endedAt, row);
      if (markEnded.run(endedAt, options.reason, row.id).changes !== 1) continue;
      const content = activityContent('end', parsed(row), { now: options.now, dismissalAt: at(options.dismissalAt, row) });
      const targets = followUpTargets(devicesOf(row.appId, row.endUserId), row.pushToken, hasApnsCredentials(db, row.appId));
      enqueue(db, { appId: row.appId, content, targets, now: options.now });
      ended.push({ ...row, state: 'Ended', endedAt, endReason: options.reason });
    }
    return ended;
  })();
}

/** The attributes and contentState of a stored activity, parsed. */
export function parsed(row: ActivityRow) {
  return {
    id: row.id,
    templateSlug: row.templateSlug,
    attributes: JSON.parse(row.attributes) as Record<string, string>,
    contentState: JSON.parse(row.contentState) as Record<string, string>,
  };
}

/** The valid devices of the activities' end users: one query per app, however many activities. */
function userDevices(db: Db, rows: readonly ActivityRow[]): (appId: string, endUserId: string) => TargetDevice[] {
  const byApp = new Map<string, Set<string>>();
  for (const row of rows) {
    const users = byApp.get(row.appId) ?? new Set();
    byApp.set(row.appId, users.add(row.endUserId));
  }
  const devices = devicesRepository(db);
  const found = new Map<string, TargetDevice[]>();
  for (const [appId, users] of byApp) {
    for (const device of devices.targets(appId, { endUserIds: [...users] })) {
      const key = `${appId}\u0000${device.endUserId}`;
      const list = found.get(key);
      if (list) list.push(device);
      else found.set(key, [device]);
    }
  }
  return (appId, endUserId) => found.get(`${appId}\u0000${endUserId}`) ?? [];
}
