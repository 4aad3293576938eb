import { isoTime } from '../../lib/clock';
import type { Sql } from '../../db/sql/sql';
import { deliveryHistoryRepository } from '../delivery/admin/delivery-history.repository';
import type { InstanceDetail } from './instances.types';
import { instancesRepository } from './instances.repository';
import type { ActivityRow } from './live-activities.types';
import { activityView } from './live-activities.view';
import { DELIVERY_STATE_NAMES, type OutboxStatus } from '../delivery/delivery-states';

/**
 * The admin view of an activity: the record plus its data, why it ended, and its instances (one
 * per device it was started on: token state and the last delivery's status); without any, why no
 * device shows it (such an activity uses no minutes).
 */
export async function activityDetail(sql: Sql, row: ActivityRow) {
  const list = await instancesRepository(sql).detail(row.id);
  return {
    ...activityView(row),
    endReason: row.endReason,
    attributes: JSON.parse(row.attributes) as Record<string, unknown>,
    contentState: JSON.parse(row.contentState) as Record<string, unknown>,
    hasPushToken: list.some((i) => i.platform === 'ios' && i.tokenState === 'active'),
    instances: list.map(instanceView),
    // Not billed: its minutes do not count (live-activities.usage.ts).
    noInstanceReason: list.length === 0 ? await noInstanceReason(sql, row) : null,
  };
}

/** Why no device shows the activity: what its start's deliveries were refused with (an iPhone without a push-to-start token). */
async function noInstanceReason(sql: Sql, row: ActivityRow): Promise<string> {
  const starts = (await deliveryHistoryRepository(sql).search(row.appId, { activityId: row.id, kind: 'la_start' }, 20, 0)).rows;
  const reasons = new Set(starts.filter((d) => d.status === 'failed' || d.status === 'dropped').map((d) => d.reason ?? d.status));
  return reasons.size > 0 ? [...reasons].join('; ') : 'the start reached no device';
}

/** An instance as the admin API shows it. */
function instanceView(i: InstanceDetail) {
  return {
    deviceId: i.deviceId,
    platform: i.platform,
    state: i.endedAt === null ? ('live' as const) : ('ended' as const),
    ...(i.reportedState ? { reportedState: i.reportedState } : {}),
    startedAt: isoTime(i.startedAt),
    ...(i.endedAt === null ? {} : { endedAt: isoTime(i.endedAt) }),
    tokenState: i.tokenState ?? ('waiting' as const),
    ...(i.tokenInvalidReason && i.tokenState === 'invalid' ? { tokenInvalidReason: i.tokenInvalidReason } : {}),
    lastDelivery: i.lastDeliveryStatus ? { status: DELIVERY_STATE_NAMES[i.lastDeliveryStatus as OutboxStatus] ?? i.lastDeliveryStatus, reason: i.lastDeliveryReason, at: isoTime(i.lastDeliveryAt!) } : null,
  };
}
