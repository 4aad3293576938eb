import type { AppContext } from '../../context';
import { HttpError } from '../../lib/errors';
import { deviceView } from '../devices/devices.view';
import { endActivities } from '../live-activities/live-activities.delivery';
import type { Erased } from './end-users.types';
import { requireTagCount, requireTagKey, requireTagValue } from '../devices/tags';
import { endUsersRepository } from './end-users.repository';
import { devicesRepository } from '../devices/devices.repository';
import { frequencyCap, quietHours, storedFrequencyCap, storedQuietHours, type FrequencyCap, type QuietHours } from '../../lib/delivery-limits';

/**
 * An end user's own limits as a PUT or PATCH gives them: a value replaces the app's for them,
 * `null` removes theirs (the app's apply again), absent leaves them as they are.
 */
export interface LimitsPatch {
  quietHours?: QuietHours | null;
  frequencyCap?: FrequencyCap | null;
}

/** The patch checked (400 naming the field) and stored as JSON. */
const storedLimits = (patch: LimitsPatch) => ({
  ...(patch.quietHours !== undefined && { quietHours: patch.quietHours === null ? null : JSON.stringify(quietHours(patch.quietHours)) }),
  ...(patch.frequencyCap !== undefined && { frequencyCap: patch.frequencyCap === null ? null : JSON.stringify(frequencyCap(patch.frequencyCap)) }),
});

const notFound = () => new HttpError(404, 'end user not found');
/** The bound device registration puts on an end user id. */
const MAX_END_USER_ID = 256;
const requireEndUserId = (endUserId: string) => {
  if (endUserId.length > MAX_END_USER_ID) throw new HttpError(400, `endUserId must be at most ${MAX_END_USER_ID} characters`);
};

/** End users as a resource (issue 38): their tags, what they have, and erasure. */
export function usersService(ctx: AppContext) {
  const store = ctx.db;
  const { clock } = ctx;

  /** The end user as the API shows them: tags and devices (as the device API shows them). */
  const view = async (appId: string, endUserId: string) => {
    if (!(await endUsersRepository(store.sql).exists(appId, endUserId))) throw notFound();
    const tags = await endUsersRepository(store.sql).tags(appId, endUserId);
    // An end user has a handful of devices; 100 is the device list's own page bound.
    const { rows } = await devicesRepository(store.sql).list(appId, { endUserId }, 100, 0);
    const own = await endUsersRepository(store.sql).limits(appId, endUserId);
    return { endUserId, tags, quietHours: storedQuietHours(own.quietHours), frequencyCap: storedFrequencyCap(own.frequencyCap), devices: rows.map(deviceView) };
  };

  return {
    get: view,

    /**
     * Replaces the end user's tags when given (creating the end user when absent), and sets their
     * own limits the body names (LimitsPatch). `readOnly`: what else the body holds of what GET
     * answered, accepted when it matches (endUserId, the devices' ids).
     */
    async replace(appId: string, endUserId: string, tags: Record<string, string> | undefined, readOnly: { endUserId?: string; devices?: unknown[] } = {}, own: LimitsPatch = {}) {
      requireEndUserId(endUserId);
      if (readOnly.endUserId !== undefined && readOnly.endUserId !== endUserId) throw new HttpError(400, `endUserId must be the path's (${endUserId}): it is read-only`);
      if (readOnly.devices !== undefined) {
        const given = readOnly.devices.map((d) => (d as { id?: unknown } | null)?.id);
        const { rows } = await devicesRepository(store.sql).list(appId, { endUserId }, 100, 0);
        if (JSON.stringify([...given].sort()) !== JSON.stringify(rows.map((r) => r.id).sort()))
          throw new HttpError(400, 'devices is read-only: leave it out, or send the devices GET answered');
      }
      for (const [key, value] of Object.entries(tags ?? {})) {
        requireTagKey(key);
        requireTagValue(key, value);
      }
      requireTagCount(Object.keys(tags ?? {}).length);
      const limits = storedLimits(own);
      await store.write(async (tx) => {
        await endUsersRepository(tx).ensure(appId, endUserId, clock.now());
        if (tags !== undefined) await endUsersRepository(tx).replaceTags(appId, endUserId, tags);
        await endUsersRepository(tx).setLimits(appId, endUserId, limits);
      });
      return view(appId, endUserId);
    },

    /** Merges tags into the end user's (a value sets the key, `null` removes it) and sets their own limits the body names (LimitsPatch). */
    async merge(appId: string, endUserId: string, tags: Record<string, string | null> = {}, own: LimitsPatch = {}) {
      requireEndUserId(endUserId);
      const limits = storedLimits(own);
      const set: Record<string, string> = {};
      const remove: string[] = [];
      for (const [key, value] of Object.entries(tags)) {
        requireTagKey(key);
        if (value === null) remove.push(key);
        else {
          requireTagValue(key, value);
          set[key] = value;
        }
      }
      await store.write(async (tx) => {
        await endUsersRepository(tx).ensure(appId, endUserId, clock.now());
        const current = await endUsersRepository(tx).tags(appId, endUserId);
        const keys = new Set([...Object.keys(current), ...Object.keys(set)]);
        for (const key of remove) keys.delete(key);
        requireTagCount(keys.size);
        await endUsersRepository(tx).mergeTags(appId, endUserId, set, remove);
        await endUsersRepository(tx).setLimits(appId, endUserId, limits);
      });
      return view(appId, endUserId);
    },

    /**
     * Erases the end user: their Active activities are ended first (the end push queued to each
     * live instance, as an API end does), then everything about them goes in the same transaction
     * (see EndUsersRepository.erase). 404 for an end user the app does not know.
     */
    async erase(appId: string, endUserId: string): Promise<{ endUserId: string; removed: Erased }> {
      const removed = await store.write(async (tx) => {
        if (!(await endUsersRepository(tx).exists(appId, endUserId))) throw notFound();
        const now = clock.now();
        const active = await endUsersRepository(tx).activeActivities(appId, endUserId);
        await endActivities(ctx.outbox, tx, active, { reason: 'api', endedAt: now, now, dismissalAt: now });
        return endUsersRepository(tx).erase(appId, endUserId);
      });
      ctx.logger.info('end user erased', { appId, ...removed });
      return { endUserId, removed };
    },
  };
}

export type UsersService = ReturnType<typeof usersService>;
