import type { AppContext } from '../../context';
import type { Sql } from '../../db/sql/sql';
import { isoTime } from '../../lib/clock';
import { HttpError } from '../../lib/errors';
import type { AppRow } from '../apps/apps.types';
import { contentOptions } from '../live-activities/live-activities.options';
import type { ActivityRow } from '../live-activities/live-activities.types';
import type { LiveActivitiesService, StartInput } from '../live-activities/live-activities.service';
import { activityView } from '../live-activities/live-activities.view';
import type { StreamRow } from './activity-streams.types';
import { activityStreamsRepository } from './activity-streams.repository';
import { instancesRepository } from '../live-activities/instances.repository';
import { liveActivitiesRepository } from '../live-activities/live-activities.repository';

export type StreamStatus = 'started' | 'updated' | 'noop' | 'rotated';

/** 1 to 128 of letters, digits, `.`, `_`, `:` and `-`. */
export const STREAM_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

const notFound = () => new HttpError(404, 'activity stream not found');

/** JSON with sorted keys: two contentStates are the same whatever order their keys came in. */
const canonical = (value: Record<string, unknown>) => JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
const targetsOf = (input: StartInput) => (input.targetUsers ? JSON.stringify([...new Set(input.targetUsers)].sort()) : null);

/**
 * Activity streams: the backend PUTs the state of a key and Islet decides. No live activity under
 * the key (or another template, attributes or targets): start (`started`, ending what ran). Same
 * contentState: nothing (`noop`). An iOS instance older than `streams.rotate_after_minutes`: end
 * and start again for the same targets (`rotated`). Else: update (`updated`). Plan, quota and
 * validation are those of start and update; each PUT is one transaction, and PUTs of one key run
 * one after another.
 */
export function activityStreamsService(ctx: AppContext, liveActivities: LiveActivitiesService) {
  const store = ctx.db;
  const rotateAfterMs = ctx.config.streams.rotate_after_minutes * 60_000;
  const locks = ctx.coordination.keyedLocks('activity-streams');

  /** Runs PUT and DELETE of one key one after another: two PUTs must not both start. */
  const serial = <T>(appId: string, key: string, job: () => Promise<T>): Promise<T> => locks.run(`${appId}\n${key}`, job);

  const requireKey = (key: string) => {
    if (!STREAM_KEY.test(key)) throw new HttpError(400, 'key must be 1 to 128 characters of A-Z, a-z, 0-9, ., _, : and -');
  };

  /** The stream's activities that are still Active. */
  const liveOf = async (r: Sql, stream: StreamRow): Promise<ActivityRow[]> => {
    const live: ActivityRow[] = [];
    for (const id of JSON.parse(stream.activityIds) as string[]) {
      const a = await liveActivitiesRepository(r).find(stream.appId, id);
      if (a?.state === 'Active') live.push(a);
    }
    return live;
  };

  const nearLimit = async (live: ActivityRow[], now: number) => {
    for (const a of live) {
      const since = await instancesRepository(store.sql).oldestLiveIos(a.id);
      if (since !== null && now - since >= rotateAfterMs) return true;
    }
    return false;
  };

  const decide = async (stream: StreamRow | undefined, live: ActivityRow[], input: StartInput, now: number): Promise<StreamStatus> => {
    const same =
      stream !== undefined &&
      stream.templateSlug === input.templateSlug &&
      stream.attributes === canonical(input.attributes ?? {}) &&
      stream.targetUsers === targetsOf(input);
    if (!same || live.length === 0) return 'started';
    if (await nearLimit(live, now)) return 'rotated';
    return stream.contentState === canonical(input.contentState) ? 'noop' : 'updated';
  };

  return {
    put(app: AppRow, key: string, input: StartInput): Promise<{ status: StreamStatus; activityIds: string[] }> {
      requireKey(key);
      return serial(app.id, key, async () => {
        const stream = await activityStreamsRepository(store.sql).find(app.id, key);
        const live = stream ? await liveOf(store.sql, stream) : [];
        const now = ctx.clock.now();
        const status = await decide(stream, live, input, now);
        if (status === 'noop') return { status, activityIds: live.map((a) => a.id) };
        if (status === 'updated') {
          return store.write(async (tx) => {
            for (const a of live) await liveActivities.updateNow(tx, app.id, a.id, input.contentState, contentOptions(input));
            await activityStreamsRepository(tx).save({ ...stream!, contentState: canonical(input.contentState), updatedAt: now });
            return { status, activityIds: live.map((a) => a.id) };
          });
        }
        // started or rotated: the start's checks (plan, quota, data) come before anything ends.
        const start = await liveActivities.prepareStart(app, input);
        return store.write(async (tx) => {
          for (const a of live) await liveActivities.endNow(tx, app.id, a.id);
          const { activities } = await start(tx);
          const activityIds = activities.map((a) => a.id);
          await activityStreamsRepository(tx).save({
            appId: app.id,
            key,
            templateSlug: input.templateSlug,
            attributes: canonical(input.attributes ?? {}),
            targetUsers: targetsOf(input),
            contentState: canonical(input.contentState),
            activityIds: JSON.stringify(activityIds),
            startedAt: now,
            updatedAt: now,
          });
          return { status, activityIds };
        });
      });
    },

    async get(appId: string, key: string) {
      requireKey(key);
      const stream = await activityStreamsRepository(store.sql).find(appId, key);
      if (!stream) throw notFound();
      const ids = JSON.parse(stream.activityIds) as string[];
      const activities = await liveActivities.findMany(appId, ids);
      return {
        key,
        state: activities.some((a) => a.state === 'Active') ? ('Active' as const) : ('Ended' as const),
        templateSlug: stream.templateSlug,
        attributes: JSON.parse(stream.attributes) as Record<string, unknown>,
        contentState: JSON.parse(stream.contentState) as Record<string, unknown>,
        targetUsers: stream.targetUsers === null ? null : (JSON.parse(stream.targetUsers) as string[]),
        activityIds: ids,
        activities: activities.map(activityView),
        startedAt: isoTime(stream.startedAt),
        updatedAt: isoTime(stream.updatedAt),
      };
    },

    /** Ends the stream's live activities and forgets the key; answers the ids it ended. */
    remove(appId: string, key: string): Promise<{ activityIds: string[] }> {
      requireKey(key);
      return serial(appId, key, () =>
        store.write(async (tx) => {
          const stream = await activityStreamsRepository(tx).find(appId, key);
          if (!stream) throw notFound();
          const live = await liveOf(tx, stream);
          for (const a of live) await liveActivities.endNow(tx, appId, a.id);
          await activityStreamsRepository(tx).remove(appId, key);
          return { activityIds: live.map((a) => a.id) };
        }),
      );
    },
  };
}

export type ActivityStreamsService = ReturnType<typeof activityStreamsService>;
