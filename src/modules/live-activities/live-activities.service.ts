import type { AppContext } from '../../context';
import type { Write } from '../../db/group-commit';
import { HttpError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AppRow } from '../apps/apps.repository';
import { enqueue, releaseHeld } from '../delivery/outbox';
import type { LiveActivityContent } from '../delivery/message-content';
import { MAX_PAYLOAD_BYTES, payloadBytes } from '../delivery/payloads';
import type { DevicesRepository, TargetDevice } from '../devices/devices.repository';
import { activityContent } from './live-activities.content';
import { endActivities, followUpTargets, hasApnsCredentials, parsed, startTargets } from './live-activities.delivery';
import { liveActivitiesRepository, type ActivityFilter, type ActivityRow, type NewActivity } from './live-activities.repository';
import { minutesExhausted, usedMinutes } from './live-activities.usage';
import { activityView } from './live-activities.view';
import { activityDataError, contentStateError } from './template-validation';
import { findTemplate, type TemplateDefinition } from './templates';

export interface StartInput {
  templateSlug: string;
  attributes?: Record<string, string>;
  contentState: Record<string, string>;
  targetUsers?: string[];
}

const notFound = () => new HttpError(404, 'live activity not found');
const notActive = () => new HttpError(409, 'live activity is not active');

/** Refuses content that neither APNs nor FCM would accept. */
function requireDeliverable(content: LiveActivityContent): void {
  if (payloadBytes(content) > MAX_PAYLOAD_BYTES) throw new HttpError(400, `payload exceeds ${MAX_PAYLOAD_BYTES} bytes`);
}

/**
 * Use cases of live activities: start, update, end, list, and the iOS per-activity token report.
 * Writes go through `write` (group commit): each resolves once its transaction is committed.
 */
export function liveActivitiesService(ctx: AppContext, devices: DevicesRepository, write: Write) {
  const { db, clock, config } = ctx;
  const repo = liveActivitiesRepository(db);

  const requireActivity = (appId: string, id: string): ActivityRow => {
    const row = repo.find(appId, id);
    if (!row) throw notFound();
    return row;
  };

  const requireTemplate = (slug: string): TemplateDefinition => {
    const template = findTemplate(slug);
    if (!template) throw new HttpError(400, 'invalid template slug');
    return template;
  };

  return {
    repo,

    /**
     * Starts one activity per targeted connected end user (all of them when `targetUsers` is
     * absent; duplicates merged, unknown ids skipped) and queues its start to each of the user's
     * devices. Activities and deliveries are written in one transaction before this resolves.
     * Refused with 403 when the plan lacks live activities, 400 for invalid data, 429 when the
     * billing period's minutes are used up.
     * @example start(app, { templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '0' } })
     */
    start(app: AppRow, input: StartInput) {
      const plan = config.plans[app.plan];
      if (!plan?.live_activities) throw new HttpError(403, 'live activities are not available on your current plan');
      const template = requireTemplate(input.templateSlug);
      const problem = activityDataError(template, input.attributes, input.contentState);
      if (problem) throw new HttpError(400, problem);
      const now = clock.now();
      const attributes = input.attributes ?? {};
      // Every start carries the same data and alert; only the activity id (of fixed length) differs.
      const base = activityContent('start', { id: newId('la', now), templateSlug: template.slug, attributes, contentState: input.contentState }, { now, template });
      requireDeliverable(base);
      if (minutesExhausted(plan, usedMinutes(db, app.id, now))) {
        throw new HttpError(429, 'live activity minutes limit exceeded for this billing period');
      }
      const attributesJson = JSON.stringify(attributes);
      const contentStateJson = JSON.stringify(input.contentState);
      const endUserIds = input.targetUsers && [...new Set(input.targetUsers)];
      return write(() => {
        const rows: NewActivity[] = [];
        for (const userDevices of byEndUser(devices.targets(app.id, { endUserIds }))) {
          // The platform of the end user's most recently registered device (they come oldest first).
          const { endUserId, platform } = userDevices.at(-1)!;
          const row = { id: newId('la', now), appId: app.id, endUserId, templateSlug: template.slug, platform, attributes: attributesJson, contentState: contentStateJson, startedAt: now };
          enqueue(db, { appId: app.id, content: { ...base, activityId: row.id }, targets: startTargets(userDevices), now });
          rows.push(row);
        }
        repo.insert(rows);
        return { activityCount: rows.length, activities: rows.map((row) => activityView({ ...row, state: 'Active', endedAt: null })) };
      });
    },

    /**
     * Replaces the whole contentState of an Active activity (validated against its template) and
     * queues the update, in one transaction.
     */
    update(appId: string, id: string, contentState: Record<string, string>): Promise<void> {
      return write(() => {
        const row = requireActivity(appId, id);
        if (row.state !== 'Active') throw notActive();
        const activity = parsed(row);
        const problem = contentStateError(requireTemplate(row.templateSlug), contentState, activity.attributes);
        if (problem) throw new HttpError(400, problem);
        const content = activityContent('update', { ...activity, contentState }, { now: clock.now() });
        requireDeliverable(content);
        repo.replaceContentState(id, JSON.stringify(contentState));
        const targets = followUpTargets(devices.targets(appId, { endUserIds: [row.endUserId] }), row.pushToken, hasApnsCredentials(db, appId));
        enqueue(db, { appId, content, targets, now: content.timestamp });
      });
    },

    /** Ends an Active activity now and queues its removal from the devices. */
    end(appId: string, id: string): Promise<void> {
      return write(() => {
        const row = requireActivity(appId, id);
        if (row.state !== 'Active') throw notActive();
        const now = clock.now();
        endActivities(db, [row], { reason: 'api', endedAt: now, dismissalAt: now, now });
      });
    },

    /** One activity of the app as the API shows it, or 404. */
    get(appId: string, id: string) {
      return activityView(requireActivity(appId, id));
    },

    /** The admin view of an activity: the record plus its data, why it ended, and whether its iOS token is known. */
    detail(appId: string, id: string) {
      const row = requireActivity(appId, id);
      return {
        ...activityView(row),
        endReason: row.endReason,
        attributes: JSON.parse(row.attributes) as Record<string, string>,
        contentState: JSON.parse(row.contentState) as Record<string, string>,
        hasPushToken: row.pushToken !== null,
      };
    },

    /** A page of the app's activities, newest first, with the count of all that match. */
    list(appId: string, filter: ActivityFilter, limit: number, offset: number) {
      const { rows, total } = repo.list(appId, filter, limit, offset);
      return { activities: rows.map(activityView), total };
    },

    /**
     * Stores the per-activity push token an iOS device reported and releases the pushes held
     * for it. Accepted for Ended activities too: a held end must still reach the device.
     */
    reportPushToken(appId: string, id: string, token: string): Promise<void> {
      return write(() => {
        requireActivity(appId, id);
        repo.setPushToken(id, token);
        releaseHeld(db, id, clock.now());
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
