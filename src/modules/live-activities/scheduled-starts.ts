import type { AppContext } from '../../context';
import type { Tx } from '../../db/store';
import { isoTime } from '../../lib/clock';
import { HttpError } from '../../lib/errors';
import type { AppRow } from '../apps/apps.types';
import { appsRepository } from '../apps/apps.repository';
import { devicesRepository } from '../devices/devices.repository';
import type { TargetDevice } from '../devices/devices.types';
import { emitterFor } from '../webhooks/webhooks.causes';
import { instancesRepository } from './instances.repository';
import { activityContent, type EventOptions } from './live-activities.content';
import { startInstances, startTargets, typedPushToStart } from './live-activities.delivery';
import type { ActivityRow, NewActivity } from './live-activities.types';
import { minutesExhausted, usedMinutes } from './live-activities.usage';
import { activityView } from './live-activities.view';
import { contentContext, resolveTemplate } from './resolved-template';
import { scheduledStartsRepository, type ScheduledStartRow } from './scheduled-starts.repository';
import { dueAtFor, type StartTime } from './start-time';
import { firstTimestamp } from './live-activities.types';
import { paceOf, pacePushToStarts } from './push-to-start-pacing';

/**
 * Scheduled starts (issue 47 item 4): `schedule` writes Scheduled activities and their waiting starts
 * (nothing is queued); `startDue` (the consumer, every second) starts each when due, through the
 * same targets and payloads as a start now, its minutes counting from then; `cancel` ends a
 * Scheduled activity before its time, sending nothing.
 */
export function scheduledStarts(ctx: AppContext) {
  const { outbox } = ctx;

  /**
   * Starts one claimed activity in `tx` (the claim's transaction), or records why it cannot start.
   * False when a request holds the activity (a DELETE cancelling it): left for the next round.
   */
  const goOut = async (tx: Tx, start: ScheduledStartRow, now: number): Promise<boolean> => {
    const row = await scheduledStartsRepository(tx).activityUnlessBusy(start.appId, start.activityId);
    if (!row) return false;
    if (row.state !== 'Scheduled') return (await scheduledStartsRepository(tx).finish(start.activityId, 'cancelled'), true);
    const notStarted = async (why: string) => {
      ctx.logger.warn('scheduled live activity could not start', { appId: row.appId, activityId: row.id, dueAt: isoTime(start.dueAt), why });
      await scheduledStartsRepository(tx).markEnded(row.id, now, 'not_started');
      await scheduledStartsRepository(tx).finish(row.id, 'not_started');
      return true;
    };
    const app = await appsRepository(tx).find(row.appId);
    const plan = app && ctx.config.plans[app.plan];
    if (!plan?.live_activities) return notStarted('the plan has no live activities');
    if (minutesExhausted(plan, await usedMinutes(tx, row.appId, now))) return notStarted('live activity minutes used up');
    let template;
    try {
      template = await resolveTemplate(tx, row.appId, row.templateSlug);
    } catch (e) {
      if (e instanceof HttpError) return notStarted('its template is gone');
      throw e;
    }
    // The end user's devices now: one registered since scheduling gets the start too.
    const devices = await devicesRepository(tx).targets(row.appId, { endUserIds: [row.endUserId] });
    if (devices.length === 0) return notStarted('the end user has no device');
    const options = JSON.parse(start.options) as EventOptions;
    const content = activityContent(
      'start',
      { id: row.id, templateSlug: row.templateSlug, attributes: JSON.parse(row.attributes) as Record<string, unknown>, contentState: JSON.parse(row.contentState) as Record<string, unknown> },
      { now, ...contentContext(template), apnsTimestamp: firstTimestamp(now), options },
    );
    const unpaced = template.custom ? startTargets(devices, await typedPushToStart(tx, devices, template.custom.attributesType)) : startTargets(devices);
    const targets = await pacePushToStarts(tx, devices, unpaced, now, paceOf(ctx.config));
    await outbox.enqueue(tx, { appId: row.appId, content, targets, now });
    await instancesRepository(tx).insert(startInstances(row.id, devices, targets, now));
    await scheduledStartsRepository(tx).markStarted(row.id, now);
    await scheduledStartsRepository(tx).finish(row.id, 'started');
    const emit = await emitterFor(tx, row.appId, 'live_activity.started', now);
    await emit({ activityId: row.id, endUserId: row.endUserId, templateSlug: row.templateSlug, platform: row.platform, devices: devices.length, startedAt: isoTime(now) });
    return true;
  };

  return {
    /**
     * The Scheduled activities of a start checked now (checkStart), one per end user whose due time
     * has not passed, written with their waiting starts in `tx`. 400 naming `startAtLocal` when its
     * wall time has passed for every targeted end user.
     */
    async schedule(tx: Tx, app: AppRow, groups: TargetDevice[][], base: Omit<NewActivity, 'id' | 'endUserId' | 'platform' | 'startedAt'>, newId: (endUserId: string) => string, time: StartTime, options: EventOptions, now: number) {
      const zones = 'local' in time ? await scheduledStartsRepository(tx).zones(groups.map((g) => g.at(-1)!.id)) : new Map<string, string | null>();
      const defaultZone = app.defaultTimeZone ?? 'UTC';
      const rows: NewActivity[] = [];
      for (const userDevices of groups) {
        // The platform, and a startAtLocal's zone, of the end user's most recently registered device.
        const { endUserId, platform, id } = userDevices.at(-1)!;
        const dueAt = dueAtFor(time, zones.get(id) ?? defaultZone, now);
        if (dueAt !== undefined) rows.push({ ...base, id: newId(endUserId), endUserId, platform, startedAt: dueAt });
      }
      if (rows.length === 0 && groups.length > 0 && 'local' in time) throw new HttpError(400, `startAtLocal ${time.text} is in the past in the time zone of every end user targeted`);
      await scheduledStartsRepository(tx).insert(rows, JSON.stringify(options), now);
      const activities = rows.map((r) => activityView({ ...r, state: 'Scheduled', endedAt: null }));
      const first = Math.min(...rows.map((r) => r.startedAt));
      return { activityCount: rows.length, activities, ...(rows.length > 0 ? { scheduledFor: isoTime(first) } : {}) };
    },

    /**
     * Starts the activities due at `now`, earliest first, each claimed and started in one
     * transaction (on PostgreSQL under SKIP LOCKED): a crash between the two leaves it waiting, so
     * it starts once after the restart. Reads only due rows: waiting starts cost nothing.
     */
    async startDue(now: number, stopped: () => boolean = () => false): Promise<number> {
      let started = 0;
      if (!(await scheduledStartsRepository(ctx.db.sql).anyDue(now))) return 0;
      while (!stopped()) {
        const went = await ctx.db.write(async (tx) => {
          const start = await scheduledStartsRepository(tx).claimDue(now);
          return start !== undefined && (await goOut(tx, start, now));
        });
        if (!went) break;
        started++;
      }
      return started;
    },
  };
}

/**
 * A DELETE of a Scheduled activity, in the caller's transaction (its row read for this write): it
 * becomes Ended (reason `cancelled`) and its start never goes. Nothing is queued, nothing billed.
 */
export async function cancelScheduled(tx: Tx, row: ActivityRow, now: number): Promise<void> {
  await scheduledStartsRepository(tx).markEnded(row.id, now, 'cancelled');
  await scheduledStartsRepository(tx).finish(row.id, 'cancelled');
}

export type ScheduledStarts = ReturnType<typeof scheduledStarts>;
