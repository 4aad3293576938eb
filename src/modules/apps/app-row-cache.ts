import type { AppContext } from '../../context';
import type { AppRow } from './apps.repository';

/**
 * How long a cached app row is trusted without news of a change: the backstop for a lost
 * 'app-changed' notification from another instance (PostgreSQL's NOTIFY is best effort). A change
 * made on this instance, and one another instance's notification brings, is seen at once; a lost
 * notification is healed within this time.
 */
export const APP_ROW_TTL_MS = 5_000;

/**
 * At most this many rows are kept: an installation has few apps, but the ids come from request
 * paths, so memory must not grow with them (only rows that exist are kept; the oldest goes first).
 */
export const APP_ROW_CACHE_MAX = 1_000;

/** The subject of an 'app-changed' wake-up: the app's id (undefined: any app may have changed). */
export const appChanged = (ctx: AppContext, appId: string): void =>
  // After the commit: another instance that heard it earlier could read the old row again.
  ctx.db.afterCommit(() => ctx.coordination.wakeUps.notify('app-changed', appId));

/**
 * The app rows that authenticate public API requests, by id: every request would otherwise read
 * its app from the database (on PostgreSQL one more statement and pool round trip per request).
 * Every write of the `apps` table by the apps service tells 'app-changed' (`appChanged`), which
 * drops the row here at once and on the other instances when their notification arrives; without
 * a subject (the listening connection came back) everything goes.
 *
 * Not told: the delivery worker pausing a channel (deliveries.ts writes `apns_paused_reason` and
 * `fcm_paused_reason`), so those two fields of a cached row may be up to APP_ROW_TTL_MS old.
 * Authentication and the routes that take its row read the id, plan, secrets and APNs credentials
 * (a broadcast's environment), never whether a channel is paused.
 * @example const rows = appRowCache(ctx, repo.find); const row = await rows.find('shop');
 */
export function appRowCache(ctx: AppContext, load: (id: string) => Promise<AppRow | undefined>) {
  const rows = new Map<string, { row: AppRow; until: number }>();
  /** Counts forgets: a row read before one may be the old one, so it is answered but not kept. */
  let generation = 0;

  const forget = (appId: string | undefined) => {
    generation++;
    if (appId === undefined) rows.clear();
    else rows.delete(appId);
  };
  // For the context's life: the services that hold the cache live as long.
  ctx.coordination.wakeUps.on('app-changed', forget);

  return {
    /** The app's row, from memory when it was read within APP_ROW_TTL_MS and has not changed since. */
    async find(appId: string): Promise<AppRow | undefined> {
      const now = ctx.clock.now();
      const kept = rows.get(appId);
      if (kept && now < kept.until) return kept.row;
      const seen = generation;
      const row = await load(appId);
      if (seen !== generation) return row;
      rows.delete(appId);
      if (!row) return undefined;
      if (rows.size >= APP_ROW_CACHE_MAX) rows.delete(rows.keys().next().value!);
      rows.set(appId, { row, until: now + APP_ROW_TTL_MS });
      return row;
    },
    /** How many rows are kept (tests). */
    get size() {
      return rows.size;
    },
  };
}

export type AppRowCache = ReturnType<typeof appRowCache>;
