import { decidePriority, spent, windowOf, type RequestedPriority } from '../live-activities/priority-budget/priority-decision';
import { budgetOf } from '../apps/live-activity-budget';
import { appsRepository } from '../apps/apps.repository';
import type { AppContext } from '../../context';
import type { Tx } from '../../db/store';
import { HttpError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AppRow } from '../apps/apps.types';
import type { AppsService } from '../apps/apps.service';
import type { AudienceFilter } from '../devices/devices.types';
import { APNS_CHANNEL_LIMIT, type StoragePolicy } from '../delivery/providers/apns/apns.channels';
import { BROADCAST_PAYLOAD_LIMIT } from '../delivery/providers/apns/apns.broadcast';
import type { LiveActivityContent } from '../delivery/message-content';
import { payloadBytes } from '../delivery/payloads';
import { activityContent, type EventOptions } from '../live-activities/live-activities.content';
import { startTargets, typedPushToStart } from '../live-activities/live-activities.delivery';
import { paceOf, pacePushToStarts } from '../live-activities/push-to-start-pacing';
import { firstTimestamp, timestampAfter } from '../live-activities/live-activities.types';
import { minutesExhausted, usedMinutes } from '../live-activities/live-activities.usage';
import { contentContext, requireValidData, requireValidState, resolveTemplate } from '../live-activities/resolved-template';
import { invalidTemplateSlug } from '../live-activities/template-errors';
import type { BroadcastEnvironment, BroadcastRow } from './broadcasts.types';
import { broadcastView, type BroadcastView } from './broadcasts.view';
import { broadcastsRepository } from './broadcasts.repository';
import { devicesRepository } from '../devices/devices.repository';
import { webhookEventsRepository } from '../webhooks/webhook-events.repository';
import { liveActivityTemplatesRepository } from '../live-activities/live-activity-templates.repository';

export interface CreateInput {
  templateSlug: string;
  /** Strings for a built-in template; typed values for an app-defined one. */
  attributes?: Record<string, unknown>;
  contentState: Record<string, unknown>;
  storagePolicy?: StoragePolicy;
}

const notFound = () => new HttpError(404, 'broadcast not found');
const notActive = () => new HttpError(409, 'broadcast is not active');

/** A simulated channel id, shaped like Apple's (24 base64 characters), for apps without APNs credentials. */
const simulatedChannelId = () => Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');

/**
 * Use cases of broadcast Live Activities (issue 31): one activity per event for a whole audience,
 * through an APNs channel (iOS 18+) and an FCM topic (Android). Provider steps (make the channel,
 * send, delete the channel) are queued in the broadcast outbox in the same transaction and done by
 * the broadcast worker, so a request never waits on Apple and nothing accepted is lost.
 */
export function broadcastsService(ctx: AppContext, apps: Pick<AppsService, 'apns'>) {
  const { clock, config } = ctx;
  const store = ctx.db;

  /** Wakes the broadcast worker once the caller's unit of work has committed. */
  const notifyQueued = () => store.afterCommit(() => ctx.coordination.wakeUps.notify('broadcasts-queued'));

  const requireBroadcast = async (tx: Tx, appId: string, id: string): Promise<BroadcastRow> => {
    const row = await broadcastsRepository(tx).find(appId, id);
    if (!row) throw notFound();
    return row;
  };

  /** Refuses content over Apple's broadcast limit (FCM's data limit is smaller than that only for the 4,096-byte device pushes). */
  const requireDeliverable = (content: LiveActivityContent) => {
    if (payloadBytes(content) > BROADCAST_PAYLOAD_LIMIT) throw new HttpError(400, `payload exceeds ${BROADCAST_PAYLOAD_LIMIT} bytes`);
  };

  const parsed = (row: BroadcastRow) => ({
    id: row.id,
    templateSlug: row.templateSlug,
    attributes: JSON.parse(row.attributes) as Record<string, unknown>,
    contentState: JSON.parse(row.contentState) as Record<string, unknown>,
  });

  /** Where the app's channel lives: its APNs environment, or the simulator without credentials. */
  const environmentOf = (app: AppRow): BroadcastEnvironment => apps.apns(app)?.environment ?? 'simulator';

  /** Queues an update or end of the broadcast; latest wins over updates not sent yet. */
  const queueEvent = async (tx: Tx, row: BroadcastRow, content: LiveActivityContent, now: number) => {
    await broadcastsRepository(tx).supersedeUpdates(row.id, now);
    await broadcastsRepository(tx).queue({ broadcastId: row.id, appId: row.appId, kind: content.event === 'end' ? 'end' : 'update', content: JSON.stringify(content), dueAt: now }, now);
    notifyQueued();
  };

  return {
    /**
     * Creates a broadcast: checks plan, template, data, size, minutes and the plan's cap on
     * broadcasts running at once, and the 10,000 channels Apple allows per app and environment
     * (refused here, before Apple is asked); queues the channel's creation at Apple (an app
     * without APNs credentials gets a simulated channel id at once).
     * @example await broadcasts.create(app, { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '0-0' } })
     */
    async create(app: AppRow, input: CreateInput, fixedId?: string): Promise<BroadcastView> {
      const plan = config.plans[app.plan];
      if (!plan?.live_activities) throw new HttpError(403, 'live activities are not available on your current plan');
      const template = await resolveTemplate(store.sql, app.id, input.templateSlug);
      requireValidData(template, input.attributes, input.contentState);
      const slug = input.templateSlug;
      const now = clock.now();
      // A fixed id only for the demo, whose examples name it.
      const id = fixedId ?? newId('bc', now);
      const attributes = input.attributes ?? {};
      const { custom } = contentContext(template);
      requireDeliverable(activityContent('update', { id, templateSlug: slug, attributes, contentState: input.contentState }, { now, apnsTimestamp: firstTimestamp(now), custom }));
      if (minutesExhausted(plan, await usedMinutes(store.sql, app.id, now))) throw new HttpError(429, 'live activity minutes limit exceeded for this billing period');
      const environment = environmentOf(app);
      return store.write(async (tx) => {
        // A delete that committed since the checks must not leave a broadcast without its template.
        if (template.custom && !(await liveActivityTemplatesRepository(tx).findShared(app.id, slug))) throw invalidTemplateSlug(slug);
        if (plan.broadcasts !== undefined && (await broadcastsRepository(tx).activeCount(app.id)) >= plan.broadcasts)
          throw new HttpError(429, `broadcasts running at once are limited to ${plan.broadcasts} on your current plan`);
        if ((await broadcastsRepository(tx).channelCount(app.id, environment)) >= APNS_CHANNEL_LIMIT)
          throw new HttpError(409, `channel limit reached: the app holds ${APNS_CHANNEL_LIMIT} broadcast channels in ${environment} (Apple's limit); end broadcasts or remove orphan channels first`);
        const simulated = environment === 'simulator';
        const row = {
          id,
          appId: app.id,
          templateSlug: slug,
          attributes: JSON.stringify(attributes),
          contentState: JSON.stringify(input.contentState),
          storagePolicy: input.storagePolicy ?? 0,
          environment,
          channelId: simulated ? simulatedChannelId() : null,
          channelState: simulated ? ('open' as const) : ('creating' as const),
          // FCM topic names allow [a-zA-Z0-9-_.~%]: the id qualifies as is.
          topic: `islet-${app.id}-${id}`,
          lastTimestamp: firstTimestamp(now),
          startedAt: now,
        };
        await broadcastsRepository(tx).insert(row);
        if (!simulated) {
          await broadcastsRepository(tx).queue({ broadcastId: id, appId: app.id, kind: 'create_channel', content: null, dueAt: now }, now);
          notifyQueued();
        }
        return broadcastView((await broadcastsRepository(tx).byId(id))!);
      });
    },

    async get(appId: string, id: string): Promise<BroadcastView> {
      return broadcastView(await requireBroadcast(store.sql, appId, id));
    },

    async list(appId: string, state: 'Active' | 'Ended' | undefined, limit: number, offset: number) {
      const { rows, total } = await broadcastsRepository(store.sql).list(appId, state, limit, offset);
      return { broadcasts: rows.map(broadcastView), total };
    },

    /** Replaces the contentState (validated against the template) and queues one broadcast and one topic message. */
    update(appId: string, id: string, contentState: Record<string, unknown>, options: EventOptions = {}): Promise<void> {
      return store.write(async (tx) => {
        const row = await requireBroadcast(tx, appId, id);
        if (row.state !== 'Active') throw notActive();
        const data = parsed(row);
        const template = await resolveTemplate(tx, appId, row.templateSlug);
        requireValidState(template, contentState, data.attributes);
        const now = clock.now();
        const apnsTimestamp = timestampAfter(row.lastTimestamp, now);
        const { custom } = contentContext(template);
        const content = { ...activityContent('update', { ...data, contentState }, { now, apnsTimestamp, options, custom }), topic: row.topic };
        requireDeliverable(content);
        content.priority = await broadcastPriority(tx, appId, id, { alert: options.alert !== undefined, requested: options.priority ?? 'auto', now });
        await broadcastsRepository(tx).recordEvent(id, JSON.stringify(contentState), apnsTimestamp);
        await queueEvent(tx, row, content, now);
      });
    },

    /**
     * Ends the broadcast: queues the end (removed from devices at once unless `dismissalAt`), after
     * which the worker deletes the channel at Apple once the dismissal date has passed. `reason`:
     * api, or quota when the scheduler ends it.
     */
    end(appId: string, id: string, input: { contentState?: Record<string, unknown>; dismissalAt?: number; priority?: RequestedPriority } = {}, reason: 'api' | 'quota' = 'api'): Promise<void> {
      return store.write(async (tx) => {
        const row = await requireBroadcast(tx, appId, id);
        if (row.state !== 'Active') throw notActive();
        const data = parsed(row);
        const contentState = input.contentState ?? data.contentState;
        const template = await resolveTemplate(tx, appId, row.templateSlug);
        if (input.contentState) requireValidState(template, input.contentState, data.attributes);
        const { custom } = contentContext(template);
        const now = clock.now();
        const apnsTimestamp = timestampAfter(row.lastTimestamp, now);
        const options = { dismissalAt: input.dismissalAt ?? now, ...(input.priority ? { priority: input.priority } : {}) };
        const content = { ...activityContent('end', { ...data, contentState }, { now, apnsTimestamp, options, custom }), topic: row.topic };
        requireDeliverable(content);
        // The state read above may be stale (an end through another instance, or two quota runs
        // during a scheduler takeover): only the write that moves it from Active ends it.
        if (!(await broadcastsRepository(tx).end(id, reason, now))) throw notActive();
        await broadcastsRepository(tx).recordEvent(id, JSON.stringify(contentState), apnsTimestamp);
        await webhookEventsRepository(tx).emit(appId, 'broadcast.ended', { broadcastId: id, endReason: reason }, now);
        await queueEvent(tx, row, content, now);
      });
    },

    /**
     * Starts the broadcast on the devices of the target users (every connected end user when
     * absent): a push-to-start carrying `input-push-channel` to each iPhone (iOS 18+ start it; an
     * iPhone that registered an older `osVersion` is skipped with a reason), a data message naming
     * the topic to each Android device. Through the device outbox, one delivery per device.
     */
    subscribe(appId: string, id: string, targetUsers: string[] | undefined, audience?: AudienceFilter) {
      return store.write(async (tx) => {
        const row = await requireBroadcast(tx, appId, id);
        if (row.state !== 'Active') throw notActive();
        if (row.channelState !== 'open') throw new HttpError(409, `broadcast channel is not open yet (${row.channelState})`);
        const now = clock.now();
        const devices = await devicesRepository(tx).targets(appId, { endUserIds: targetUsers && [...new Set(targetUsers)], audience });
        const skipped: { deviceId: string; reason: string }[] = [];
        const reachable = devices.filter((d) => {
          const reason = d.platform === 'ios' ? iosStartProblem(d.osVersion) : d.platform === 'web' ? 'broadcast channels do not reach web devices' : undefined;
          if (reason) skipped.push({ deviceId: d.id, reason });
          return reason === undefined;
        });
        const data = parsed(row);
        const template = await resolveTemplate(tx, appId, row.templateSlug);
        const content: LiveActivityContent = {
          ...activityContent('start', data, { now, apnsTimestamp: row.lastTimestamp, ...contentContext(template) }),
          inputPushChannel: row.channelId!,
          topic: row.topic,
        };
        // An app-defined template starts at each iPhone's push-to-start token of its attributes type.
        const unpaced = template.custom ? startTargets(reachable, await typedPushToStart(tx, reachable, template.custom.attributesType)) : startTargets(reachable);
        // Push-to-starts share the device's budget with those of single activities (push-to-start-pacing.ts).
        const targets = await pacePushToStarts(tx, reachable, unpaced, now, paceOf(ctx.config));
        const failed = targets.filter((t) => t.status === 'failed').map((t) => ({ deviceId: t.deviceId, reason: t.reason! }));
        await ctx.outbox.enqueue(tx, { appId, content, targets, now });
        const started = targets.length - failed.length;
        await broadcastsRepository(tx).addSubscribers(id, started);
        return { started, skipped: [...skipped, ...failed] };
      });
    },
  };
}

/** Why an iPhone cannot start a broadcast's activity: only iOS 18 and later follow a channel (unknown version: tried). */
export function iosStartProblem(osVersion: string | null | undefined): string | undefined {
  if (!osVersion) return undefined;
  const major = Number(osVersion.split('.')[0]);
  return major < 18 ? `iOS ${osVersion} cannot start a broadcast Live Activity (iOS 18 or later)` : undefined;
}

export type BroadcastsService = ReturnType<typeof broadcastsService>;

/**
 * The priority of a broadcast's update (`auto`: priority-budget/priority-decision.ts), counted per
 * broadcast: every device on the channel gets the same updates, so the channel's count is each
 * device's. The frequent budget does not apply: a channel reaches devices that did not allow it.
 */
async function broadcastPriority(tx: Tx, appId: string, id: string, push: { alert: boolean; requested: RequestedPriority; now: number }): Promise<5 | 10> {
  const window = windowOf(await broadcastsRepository(tx).priority10Sent(id), push.now);
  const budget = budgetOf(await appsRepository(tx).liveActivityBudget(appId));
  const priority = decidePriority({ event: 'update', ...push, sentInHour: window.length, limit: budget.priority10PerHour });
  if (priority === 10) await broadcastsRepository(tx).spendPriority10(id, spent(window, push.now, budget.priority10PerHour));
  return priority;
}
