import type { RequestedPriority } from './priority-budget/priority-decision';
import { activitiesEnded } from '../webhooks/webhooks.causes';
import type { Tx } from '../../db/store';
import type { DeliveryTarget, Outbox } from '../delivery/outbox/outbox';
import type { LiveActivityContent } from '../delivery/message-content';
import type { TargetDevice } from '../devices/devices.types';
import type { InstanceTarget, NewInstance } from './instances.types';
import { activityContent } from './live-activities.content';
import type { ActivityRow } from './live-activities.types';
import { customOf } from './resolved-template';
import { liveActivitiesRepository } from './live-activities.repository';
import { appsRepository } from '../apps/apps.repository';
import { instancesRepository } from './instances.repository';
import { tokensRepository } from '../tokens/tokens.repository';

export const NO_PUSH_TO_START_TOKEN = 'device has no push-to-start token';

/** An app-defined template's push-to-start tokens: the device's token id for its attributes type. */
export interface TypedTokens {
  attributesType: string;
  byDevice: ReadonlyMap<string, number>;
}

/**
 * Where a start goes: every valid device of the end user, each at its own token (an iPhone at its
 * push-to-start token, an Android device at its registration token, a web device at its
 * subscription, where it shows as a notification each event replaces). An iPhone without a
 * push-to-start token cannot be started; its delivery is recorded as failed so the console shows why.
 */
export function startTargets(devices: readonly TargetDevice[], typed?: TypedTokens): DeliveryTarget[] {
  return devices.map((d) => {
    if (d.platform !== 'ios') return { deviceId: d.id, tokenId: d.tokenId };
    if (typed) {
      const tokenId = typed.byDevice.get(d.id);
      return tokenId === undefined ? { deviceId: d.id, status: 'failed', reason: `${NO_PUSH_TO_START_TOKEN} for ${typed.attributesType}` } : { deviceId: d.id, tokenId };
    }
    if (d.pushToStartTokenId === null) return { deviceId: d.id, status: 'failed', reason: NO_PUSH_TO_START_TOKEN };
    return { deviceId: d.id, tokenId: d.pushToStartTokenId };
  });
}

/**
 * The push-to-start token of an app-defined attributes type per iPhone of `devices`: iOS issues one
 * per ActivityAttributes type, so the IsletActivityAttributes one cannot start it.
 */
export async function typedPushToStart(tx: Tx, devices: readonly TargetDevice[], attributesType: string): Promise<TypedTokens> {
  const iphones = devices.filter((d) => d.platform === 'ios').map((d) => d.id);
  const tokens = iphones.length === 0 ? [] : await tokensRepository(tx).pushToStartFor(iphones, attributesType);
  return { attributesType, byDevice: new Map(tokens.map((t) => [t.deviceId, t.id])) };
}

/** The instances a start creates: one per device its start was queued to (not the failed ones). */
export function startInstances(activityId: string, devices: readonly TargetDevice[], targets: readonly DeliveryTarget[], startedAt: number): NewInstance[] {
  return targets.flatMap((t, i) => (t.status === 'failed' ? [] : [{ activityId, deviceId: t.deviceId, platform: devices[i]!.platform, startedAt }]));
}

/**
 * Where an update or end goes: every live instance, each at its own token (Android and web: the
 * device's registration token or subscription). An iOS instance whose
 * update token has not arrived is held (latest wins) and released when the device reports it —
 * when the app has APNs credentials: without them the simulator records what would be sent, and
 * no device could ever report a token. An instance whose token a provider refused gets nothing
 * (iOS: the activity is gone from that phone; Android and web: the device is gone). `apnsConfigured` is
 * asked only for an instance still waiting for its token: most updates need no look at the app.
 */
export async function followUpTargets(instances: readonly InstanceTarget[], apnsConfigured: () => Promise<boolean>): Promise<DeliveryTarget[]> {
  const targets: DeliveryTarget[] = [];
  let configured: boolean | undefined;
  for (const i of instances) {
    if (i.platform !== 'ios') {
      if (i.deviceTokenId !== null) targets.push({ deviceId: i.deviceId, tokenId: i.deviceTokenId });
    } else if (i.activityTokenState === 'active') targets.push({ deviceId: i.deviceId, tokenId: i.activityTokenId! });
    else if (i.activityTokenState === null) targets.push((configured ??= await apnsConfigured()) ? { deviceId: i.deviceId, status: 'held' } : { deviceId: i.deviceId });
  }
  return targets;
}

/** A time given once for all activities, or per activity (e.g. startedAt + 8 h for iOS expiry). */
export type PerActivity = number | ((row: ActivityRow) => number);

export interface EndOptions {
  /** api: DELETE by the app; quota: minutes used up; expired: no live instance left after the iOS 8-hour limit. */
  reason: NonNullable<ActivityRow['endReason']>;
  endedAt: PerActivity;
  /** When the device removes the activity (the end's own time: at once); never absent, which iOS reads as "up to 4 h". */
  dismissalAt: PerActivity;
  /** When this happens: the time of the queued pushes. */
  now: number;
  /** API end: a final contentState (already validated) and the end's priority. */
  contentState?: Record<string, unknown>;
  priority?: RequestedPriority;
  /** API end: refuses an end's content (its size) by throwing; the content checked is the one queued. */
  check?: (content: LiveActivityContent) => void;
}

/**
 * Marks Active activities Ended, queues their end pushes to every live instance and ends the
 * instances, in the caller's transaction `tx`. Activities that are no longer Active when it runs
 * are skipped, so an API end and the scheduler never end one twice. Returns the activities it
 * ended, as they now are.
 * @example await ctx.db.write((tx) => endActivities(ctx.outbox, tx, expired, { reason: 'expired', endedAt: (a) => a.startedAt + 8 * HOUR, now }))
 */
export async function endActivities(outbox: Outbox, tx: Tx, rows: readonly ActivityRow[], options: EndOptions): Promise<ActivityRow[]> {
  const at = (value: PerActivity, row: ActivityRow) => (typeof value === 'function' ? value(row) : value);
  const ended: ActivityRow[] = [];
  for (const row of rows) {
    const endedAt = at(options.endedAt, row);
    const finalState = options.contentState ? JSON.stringify(options.contentState) : null;
    if (!(await liveActivitiesRepository(tx).markEnded(row.id, endedAt, options.reason, finalState))) continue;
    const activity = { ...parsed(row), ...(options.contentState ? { contentState: options.contentState } : {}) };
    const dismissalAt = at(options.dismissalAt, row);
    const content = activityContent('end', activity, {
      now: options.now,
      apnsTimestamp: await liveActivitiesRepository(tx).nextTimestamp(row.id, options.now),
      options: { dismissalAt, priority: options.priority },
      custom: await customOf(tx, row.appId, row.templateSlug),
    });
    // A refusal throws out of the caller's unit of work, which undoes this end.
    options.check?.(content);
    const targets = await followUpTargets(await instancesRepository(tx).live(row.id), () => appsRepository(tx).hasApnsCredentials(row.appId));
    await outbox.enqueue(tx, { appId: row.appId, content, targets, now: options.now });
    await instancesRepository(tx).end(row.id, endedAt);
    ended.push({ ...row, state: 'Ended', endedAt, endReason: options.reason, contentState: finalState ?? row.contentState });
  }
  // Webhooks: live_activity.ended, committed with the end.
  await activitiesEnded(tx, ended, options.now);
  return ended;
}

/**
 * Ends some instances of an Active activity (the iOS ones past the 8-hour limit) and queues the
 * end to just those devices, in `tx`; the activity itself stays Active while another instance is live.
 */
export async function endInstances(
  outbox: Outbox,
  tx: Tx,
  row: ActivityRow,
  deviceIds: readonly string[],
  options: { endedAt: number; dismissalAt: number; now: number },
): Promise<void> {
  const chosen = new Set(deviceIds);
  const live = (await instancesRepository(tx).live(row.id)).filter((i) => chosen.has(i.deviceId));
  // Only the instances this unit of work ended get the end: two expiry runs at once (a scheduler
  // leader taking over while the old one's run finishes) queue it once.
  const ended = new Set(await instancesRepository(tx).end(row.id, options.endedAt, deviceIds));
  const targets = await followUpTargets(
    live.filter((i) => ended.has(i.deviceId)),
    () => appsRepository(tx).hasApnsCredentials(row.appId),
  );
  const content = activityContent('end', parsed(row), {
    now: options.now,
    apnsTimestamp: await liveActivitiesRepository(tx).nextTimestamp(row.id, options.now),
    options: { dismissalAt: options.dismissalAt },
    custom: await customOf(tx, row.appId, row.templateSlug),
  });
  await outbox.enqueue(tx, { appId: row.appId, content, targets, now: options.now });
}

/** The attributes and contentState of a stored activity, parsed. */
export function parsed(row: ActivityRow) {
  return {
    id: row.id,
    templateSlug: row.templateSlug,
    attributes: JSON.parse(row.attributes) as Record<string, unknown>,
    contentState: JSON.parse(row.contentState) as Record<string, unknown>,
  };
}
