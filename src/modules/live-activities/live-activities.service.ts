import type { RequestedPriority } from './priority-budget/priority-decision';
import { shownId } from '../../lib/anonymous';
import type { AppContext } from '../../context';
import type { Sql } from '../../db/sql/sql';
import type { Tx } from '../../db/store';
import { HttpError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AppRow } from '../apps/apps.types';
import type { LiveActivityContent, MessageContent } from '../delivery/message-content';
import { apnsBodyOf } from '../delivery/payloads';
import type { DeliveryTarget } from '../delivery/outbox/outbox';
import type { TargetDevice } from '../devices/devices.types';
import { isoTime } from '../../lib/clock';
import type { NewInstance } from './instances.types';
import type { EventOptions } from './live-activities.content';
import { checkStart, requireDeliverable, type StartInput } from './start-checks';
import { cancelScheduled, scheduledStarts } from './scheduled-starts';
import type { StartTime } from './start-time';
import { paceOf, pacePushToStarts } from './push-to-start-pacing';
import { contentOptions } from './live-activities.options';
import { endActivities, parsed, startInstances, startTargets, typedPushToStart } from './live-activities.delivery';
import { type ActivityFilter, type ActivityRow, type NewActivity } from './live-activities.types';
import { minutesExhausted, usedMinutes } from './live-activities.usage';
import { activityView } from './live-activities.view';
import { emitterFor } from '../webhooks/webhooks.causes';
import { requireValidData, requireValidState, resolveTemplate } from './resolved-template';
import { invalidTemplateSlug } from './template-errors';
import { webhookEventsRepository } from '../webhooks/webhook-events.repository';
import { instancesRepository } from './instances.repository';
import { tokensRepository } from '../tokens/tokens.repository';
import { liveActivitiesRepository } from './live-activities.repository';
import { appsRepository } from '../apps/apps.repository';
import { devicesRepository } from '../devices/devices.repository';
import { liveActivityTemplatesRepository } from './live-activity-templates.repository';
import { activityDetail } from './live-activities.detail';
import { notActive, notFound, planUpdate, updateInOneWrite } from './optimistic-update';
import { priorityBudgetRepository } from './priority-budget/priority-budget.repository';
import { enqueueGroups } from './priority-budget/with-priority';
import { localKeyedLocks } from '../../coordination/local/keyed-locks';

export type { StartInput } from './start-checks';

/** An end's options: a final contentState, when the system removes it, and the push priority. */
export interface EndInput {
  contentState?: Record<string, unknown>;
  dismissalAt?: number;
  priority?: RequestedPriority;
}

/** `activityId` names the activities instead of generated ids (the demo's fixed id). */
export interface StartOptions {
  activityId?: (endUserId: string) => string;
  /** A scheduled start (`startAt`, `startAtLocal`): Scheduled activities now, their start when due (scheduled-starts.ts). */
  at?: StartTime;
}

/**
 * Use cases of live activities: start, update, end, list, and the iOS per-activity token report.
 * Writes are units of work of the store (`ctx.db.write`): each resolves once its transaction is committed.
 */
export function liveActivitiesService(ctx: AppContext) {
  const { clock, config } = ctx;
  const store = ctx.db;
  const { outbox } = ctx;
  const updateTurns = localKeyedLocks();

  const requireActivity = async (r: Sql, appId: string, id: string): Promise<ActivityRow> => {
    const row = await liveActivitiesRepository(r).find(appId, id);
    if (!row) throw notFound();
    return row;
  };

  /** requireActivity in a write that changes the activity from what it reads (see `findForWrite`). */
  const requireActivityForWrite = async (tx: Tx, appId: string, id: string): Promise<ActivityRow> => {
    const row = await liveActivitiesRepository(tx).findForWrite(appId, id);
    if (!row) throw notFound();
    return row;
  };

  /** The iOS device of the activity's end user that reports a token: the one named, or the only one. */
  const reportingDevice = async (tx: Tx, appId: string, activity: ActivityRow, deviceId: string | undefined) => {
    if (deviceId !== undefined) {
      const device = await devicesRepository(tx).find(appId, deviceId);
      if (!device || device.endUserId !== activity.endUserId || device.platform !== 'ios')
        throw new HttpError(400, "deviceId is not an iOS device of the activity's end user");
      return device;
    }
    const ios = (await devicesRepository(tx).targets(appId, { endUserIds: [activity.endUserId] })).filter((d) => d.platform === 'ios');
    if (ios.length > 1) throw new HttpError(400, 'deviceId is required: the end user has more than one iOS device');
    // No valid iOS device (its alert token was refused): the activity's only iOS instance, if any.
    const onlyId = ios[0]?.id ?? (await instancesRepository(tx).detail(activity.id)).find((i) => i.platform === 'ios')?.deviceId;
    const device = onlyId === undefined ? undefined : await devicesRepository(tx).find(appId, onlyId);
    if (!device) throw new HttpError(400, 'deviceId is required: the end user has no valid iOS device');
    return device;
  };

  /**
   * A start's checks (plan, template, data, payload size, quota), run now; returns the start
   * itself, to run inside a write transaction `tx` (alone, or with more work: activity streams).
   */
  const prepareStart = async (app: AppRow, input: StartInput, options: StartOptions = {}) => {
    const { template, base, now, attributes } = await checkStart(ctx, app, input);
    const slug = input.templateSlug;
    const attributesJson = JSON.stringify(attributes);
    const contentStateJson = JSON.stringify(input.contentState);
    const endUserIds = input.targetUsers && [...new Set(input.targetUsers)];
    return async (tx: Tx) => {
      // A delete that committed since the checks must not leave an activity without its template.
      if (template.custom && !(await liveActivityTemplatesRepository(tx).findShared(app.id, slug))) throw invalidTemplateSlug(slug);
      const rows: NewActivity[] = [];
      const started: NewInstance[] = [];
      const groups = byEndUser(await devicesRepository(tx).targets(app.id, { endUserIds, audience: input.audience }));
      if (options.at) {
        const base = { appId: app.id, templateSlug: slug, attributes: attributesJson, contentState: contentStateJson };
        return scheduledStarts(ctx).schedule(tx, app, groups, base, (u) => options.activityId?.(u) ?? newId('la', now), options.at, contentOptions(input), now);
      }
      const messages: { content: MessageContent; targets: DeliveryTarget[]; sentBody: string | null }[] = [];
      const emitStarted = await emitterFor(tx, app.id, 'live_activity.started', now);
      const planned: { userDevices: TargetDevice[]; targets: DeliveryTarget[] }[] = [];
      for (const userDevices of groups) {
        const targets = template.custom ? startTargets(userDevices, await typedPushToStart(tx, userDevices, template.custom.attributesType)) : startTargets(userDevices);
        planned.push({ userDevices, targets });
      }
      // Paced as one: the slots of every device of the start read once and written once.
      await pacePushToStarts(tx, planned.flatMap((p) => p.userDevices), planned.flatMap((p) => p.targets), now, paceOf(config));
      for (const { userDevices, targets } of planned) {
        // The platform of the end user's most recently registered device (they come oldest first).
        const { endUserId, platform } = userDevices.at(-1)!;
        const row = { id: options.activityId?.(endUserId) ?? newId('la', now), appId: app.id, endUserId, templateSlug: slug, platform, attributes: attributesJson, contentState: contentStateJson, startedAt: now };
        const content = { ...base, activityId: row.id };
        // Rendered here, as an update's is: the worker sends it as kept (messages.sent_body) rather
        // than writing it back to the message at the first delivery (one statement per start less).
        messages.push({ content, targets, sentBody: userDevices.some((d) => d.platform === 'ios') ? apnsBodyOf(content) : null });
        rows.push(row);
        started.push(...startInstances(row.id, userDevices, targets, now));
        await emitStarted({ activityId: row.id, endUserId, templateSlug: slug, platform, devices: userDevices.length, startedAt: isoTime(now) });
      }
      // One statement a few hundred starts on PostgreSQL rather than two per end user.
      await outbox.enqueueEach(tx, { appId: app.id, now, messages });
      await liveActivitiesRepository(tx).insert(rows);
      await instancesRepository(tx).insert(started);
      return { activityCount: rows.length, activities: rows.map((row) => activityView({ ...row, state: 'Active', endedAt: null })) };
    };
  };

  /**
   * Replaces the whole contentState of an Active activity (validated against its template) and
   * queues the update to each live instance, in the caller's write transaction `tx`.
   */
  const updateNow = async (tx: Tx, appId: string, id: string, contentState: Record<string, unknown>, options: EventOptions = {}): Promise<void> => {
    // Statements side by side go to PostgreSQL in one round trip and run in the order given, on the
    // unit of work's connection: the live instances are read once the activity's row is locked.
    // (SQLite runs each at once, in the same order.) Read for this write, so its lastTimestamp is the
    // latest (the guarantee "latest read in a write" of coordination.ts).
    const [row, instances, budget] = await Promise.all([
      requireActivityForWrite(tx, appId, id),
      instancesRepository(tx).live(id),
      appsRepository(tx).liveActivityBudget(appId),
    ]);
    const plan = await planUpdate(ctx, tx, { row, instances, budget, apnsConfigured: () => appsRepository(tx).hasApnsCredentials(appId) }, contentState, options);
    const { now, content, rendered } = plan;
    await Promise.all([
      ...plan.spends.map((s) => priorityBudgetRepository(tx).spend(id, s.deviceId, s.window)),
      liveActivitiesRepository(tx).recordUpdate(id, JSON.stringify(contentState), plan.apnsTimestamp),
      enqueueGroups(outbox, tx, { appId, content, now, rendered }, plan.groups),
    ]);
  };

  /** Ends an Active activity and queues its end (see `end`), in the caller's write transaction `tx`. */
  const endNow = async (tx: Tx, appId: string, id: string, input: EndInput = {}): Promise<void> => {
    const row = await requireActivityForWrite(tx, appId, id);
    // Before its time a DELETE cancels the start: nothing is sent.
    if (row.state === 'Scheduled') return cancelScheduled(tx, row, clock.now());
    if (row.state !== 'Active') throw notActive();
    if (input.contentState) requireValidState(await resolveTemplate(tx, appId, row.templateSlug), input.contentState, parsed(row).attributes);
    const now = clock.now();
    // Without a dismissal date iOS would keep an ended activity up to 4 hours: the end's own time removes it at once.
    // A final contentState may make the end too large: the end built to be queued is the one measured.
    const check = input.contentState ? requireDeliverable : undefined;
    await endActivities(outbox, tx, [row], { reason: 'api', endedAt: now, now, ...input, dismissalAt: input.dismissalAt ?? now, check });
  };

  return {

    /**
     * Starts one activity per targeted connected end user (all of them when `targetUsers` is
     * absent; duplicates merged, unknown ids skipped) and queues its start to each of the user's
     * devices. Activities and deliveries are written in one transaction before this resolves.
     * Refused with 403 when the plan lacks live activities, 400 for invalid data, 429 when the
     * billing period's minutes are used up.
     * @example start(app, { templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '0' } })
     */
    async start(app: AppRow, input: StartInput, options: StartOptions = {}) {
      return store.write(await prepareStart(app, input, options));
    },

    prepareStart,

    /**
     * Replaces the whole contentState of an Active activity (validated against its template) and
     * queues the update to each live instance, in one transaction.
     */
    async update(appId: string, id: string, contentState: Record<string, unknown>, options: EventOptions = {}): Promise<void> {
      if (store.sql.dialect.name === 'sqlite') return store.write((tx) => updateNow(tx, appId, id, contentState, options));
      // PostgreSQL: a read and one write statement, no transaction (optimistic-update.ts). Updates of
      // one activity take turns in this process, so they do not lose to each other and read again.
      return updateTurns.run(`${appId}\n${id}`, async () => {
        if (!(await updateInOneWrite(ctx, appId, id, contentState, options))) await store.write((tx) => updateNow(tx, appId, id, contentState, options));
      });
    },

    updateNow,

    /**
     * Ends an Active activity now and queues its end to each live instance, which removes it from
     * the device at once (spec: "removed from the device"), or at `dismissalAt` when given (the
     * final state stays visible until then). A final `contentState` is validated like an update's.
     */
    end(appId: string, id: string, input: EndInput = {}): Promise<void> {
      return store.write((tx) => endNow(tx, appId, id, input));
    },

    endNow,

    /** One activity of the app as the API shows it, or 404. */
    async get(appId: string, id: string) {
      return activityView(await requireActivity(store.sql, appId, id));
    },

    /** The end user of the app's activity, or undefined when there is none (authentication by end-user signature). */
    async endUserOf(appId: string, id: string): Promise<string | undefined> {
      return (await liveActivitiesRepository(store.sql).find(appId, id))?.endUserId;
    },

    /** The app's activities with these ids that exist, in that order. */
    async findMany(appId: string, ids: readonly string[]): Promise<ActivityRow[]> {
      const rows = await Promise.all(ids.map((id) => liveActivitiesRepository(store.sql).find(appId, id)));
      return rows.filter((a): a is ActivityRow => a !== undefined);
    },

    /** The admin view of an activity, or 404 (see activityDetail). */
    async detail(appId: string, id: string) {
      return activityDetail(store.sql, await requireActivity(store.sql, appId, id));
    },

    /** A page of the app's activities, newest first, with the count of all that match. */
    async list(appId: string, filter: ActivityFilter, limit: number, offset: number) {
      const { rows, total } = await liveActivitiesRepository(store.sql).list(appId, filter, limit, offset);
      return { activities: rows.map(activityView), total };
    },

    /**
     * Stores the update token an iOS device reported for its instance of the activity and releases
     * the pushes held for that instance. `deviceId` (what device registration answered) says which
     * device; it may be left out while the end user has one iOS device. A device the activity was
     * not started on (the same phone registered again after a device-token rotation) gets an
     * instance now. Accepted for Ended activities too: a held end must still reach the device.
     */
    reportPushToken(appId: string, id: string, input: { token: string; deviceId?: string }): Promise<void> {
      return store.write(async (tx) => {
        const activity = await requireActivityForWrite(tx, appId, id);
        const device = await reportingDevice(tx, appId, activity, input.deviceId);
        const now = clock.now();
        const tokenId = await tokensRepository(tx).reportActivity(appId, id, device.id, input.token, device.environment, now);
        await instancesRepository(tx).insert([{ activityId: id, deviceId: device.id, platform: 'ios', startedAt: activity.startedAt }]);
        await outbox.releaseHeld(tx, { activityId: id, deviceId: device.id, tokenId }, now);
        await webhookEventsRepository(tx).emit(appId, 'live_activity.token_received', { activityId: id, deviceId: device.id, endUserId: shownId(activity.endUserId) }, now);
      });
    },
  };
}

/** Devices ordered by end user, cut into one group per end user. */
function byEndUser(devices: TargetDevice[]): TargetDevice[][] {
  const groups: TargetDevice[][] = [];
  let current: TargetDevice[] | undefined;
  for (const device of devices) {
    if (current?.[0]?.endUserId !== device.endUserId) groups.push((current = []));
    current!.push(device);
  }
  return groups;
}

export type LiveActivitiesService = ReturnType<typeof liveActivitiesService>;
