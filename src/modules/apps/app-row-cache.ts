import type { AppContext } from '../../context';
import type { AppRow } from './apps.types';

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

/**
 * Tells every instance that the app's row was written ('app-changed', subject: its id), once the
 * unit of work running now has committed (at once outside one).
 */
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
 * @example const rows = appRowCache(ctx, repo.find); const { row, accepted } = await rows.check('shop', (r) => r?.appSecretHash === hash);
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
  const keep = (appId: string, row: AppRow | undefined, readAt: number) => {
    rows.delete(appId);
    if (!row) return;
    if (rows.size >= APP_ROW_CACHE_MAX) rows.delete(rows.keys().next().value!);
    // One object answers many requests: none may change it for the others.
    rows.set(appId, { row: Object.freeze(row), until: readAt + APP_ROW_TTL_MS });
  };
  // For the context's life: the services that hold the cache live as long.
  ctx.coordination.wakeUps.on('app-changed', forget);

  return {
    /**
     * The app's row, and whether `accepts` (the request's credential checked against it) takes it.
     * A row kept from the last APP_ROW_TTL_MS serves when it is accepted; otherwise the row is read
     * (and kept): a credential the kept row refuses is judged on the database's row, so a secret
     * rotated through another instance works here at once, and every refusal reads the database
     * once whether the app exists or not (an unknown app and a wrong key take the same time).
     */
    async check(appId: string, accepts: (row: AppRow | undefined) => boolean): Promise<{ row: AppRow | undefined; accepted: boolean }> {
      const now = ctx.clock.now();
      const kept = rows.get(appId);
      if (kept && now < kept.until && accepts(kept.row)) return { row: kept.row, accepted: true };
      const seen = generation;
      const row = await load(appId);
      if (seen === generation) keep(appId, row, now);
      return { row, accepted: accepts(row) };
    },
    /** How many rows are kept (tests). */
    get size() {
      return rows.size;
    },
  };
}
