import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/database';
import { devices, endUsers } from '../../db/schema';
import { newId } from '../../lib/ids';

export type DeviceRow = typeof devices.$inferSelect;
export type EndUserRow = typeof endUsers.$inferSelect;

export interface DeviceInput {
  endUserId: string;
  platform: 'ios' | 'android';
  token: string;
  pushToStartToken?: string;
  environment?: 'production' | 'sandbox';
  tester?: boolean;
}

/** A valid device a fan-out goes to. */
export interface TargetDevice {
  id: string;
  endUserId: string;
  platform: 'ios' | 'android';
  pushToStartToken: string | null;
  createdAt: number;
}

export function devicesRepository(db: Db) {
  const targetColumns = `SELECT d.id, d.end_user_id AS endUserId, d.platform, d.push_to_start_token AS pushToStartToken, d.created_at AS createdAt
       FROM devices d`;
  const allTargets = db.$client.query<TargetDevice, [string]>(
    `${targetColumns} WHERE d.app_id = ? AND d.invalidated_at IS NULL ORDER BY d.end_user_id, d.created_at`,
  );
  const usersTargets = db.$client.query<TargetDevice, [string, string]>(
    `${targetColumns} WHERE d.app_id = ? AND d.invalidated_at IS NULL
        AND d.end_user_id IN (SELECT value FROM json_each(?)) ORDER BY d.end_user_id, d.created_at`,
  );
  // One end user (every activity update and end): a plain lookup, without building JSON for json_each.
  const userTargets = db.$client.query<TargetDevice, [string, string]>(
    `${targetColumns} WHERE d.app_id = ? AND d.end_user_id = ? AND d.invalidated_at IS NULL ORDER BY d.created_at`,
  );
  const testerFilter = db.$client.query<{ id: string }, [string]>(`SELECT id FROM end_users WHERE app_id = ? AND tester = 1`);
  return {
    /**
     * The valid devices of the given end users (all connected end users when `endUserIds` is
     * undefined), optionally only testers', ordered by end user then registration time.
     * Unknown end user ids simply match nothing.
     */
    targets(appId: string, filter: { endUserIds?: string[]; testersOnly?: boolean } = {}): TargetDevice[] {
      const ids = filter.endUserIds;
      const rows =
        ids === undefined ? allTargets.all(appId) : ids.length === 1 ? userTargets.all(appId, ids[0]!) : usersTargets.all(appId, JSON.stringify(ids));
      if (!filter.testersOnly) return rows;
      const testers = new Set(testerFilter.all(appId).map((r) => r.id));
      return rows.filter((r) => testers.has(r.endUserId));
    },

    /**
     * Registers or refreshes a device (one per app, platform and token) and its end user, in one
     * transaction. A token registered again is valid again, even if a provider had refused it.
     */
    upsert(appId: string, input: DeviceInput, now: number): { device: DeviceRow; created: boolean } {
      return db.transaction((tx) => {
        tx.insert(endUsers)
          .values({ appId, id: input.endUserId, tester: input.tester ?? false, createdAt: now, lastSeenAt: now })
          .onConflictDoUpdate({
            target: [endUsers.appId, endUsers.id],
            set: input.tester === undefined ? { lastSeenAt: now } : { lastSeenAt: now, tester: input.tester },
          })
          .run();
        const existing = tx
          .select()
          .from(devices)
          .where(and(eq(devices.appId, appId), eq(devices.platform, input.platform), eq(devices.token, input.token)))
          .get();
        const fields = {
          endUserId: input.endUserId,
          pushToStartToken: input.pushToStartToken ?? existing?.pushToStartToken ?? null,
          environment: input.environment ?? existing?.environment ?? 'production',
          invalidatedAt: null,
          invalidReason: null,
          updatedAt: now,
        };
        if (existing) {
          tx.update(devices).set(fields).where(eq(devices.id, existing.id)).run();
          return { device: { ...existing, ...fields }, created: false };
        }
        const device: DeviceRow = { id: newId('dev', now), appId, platform: input.platform, token: input.token, createdAt: now, ...fields };
        tx.insert(devices).values(device).run();
        return { device, created: true };
      });
    },

    find(appId: string, id: string): DeviceRow | undefined {
      return db
        .select()
        .from(devices)
        .where(and(eq(devices.appId, appId), eq(devices.id, id)))
        .get();
    },

    remove(appId: string, id: string): boolean {
      return db.delete(devices).where(and(eq(devices.appId, appId), eq(devices.id, id))).returning({ id: devices.id }).all().length > 0;
    },

    list(appId: string, filter: { endUserId?: string }, limit: number, offset: number) {
      const where = and(eq(devices.appId, appId), filter.endUserId ? eq(devices.endUserId, filter.endUserId) : undefined);
      const rows = db.select().from(devices).where(where).orderBy(desc(devices.createdAt), desc(devices.id)).limit(limit).offset(offset).all();
      const total = db.select({ n: count() }).from(devices).where(where).get()?.n ?? 0;
      return { rows, total };
    },

    listEndUsers(appId: string, limit: number, offset: number) {
      const rows = db
        .select({
          id: endUsers.id,
          tester: endUsers.tester,
          createdAt: endUsers.createdAt,
          lastSeenAt: endUsers.lastSeenAt,
          devices: sql<number>`(SELECT count(*) FROM devices d WHERE d.app_id = end_users.app_id AND d.end_user_id = end_users.id AND d.invalidated_at IS NULL)`,
        })
        .from(endUsers)
        .where(eq(endUsers.appId, appId))
        .orderBy(desc(endUsers.lastSeenAt), endUsers.id)
        .limit(limit)
        .offset(offset)
        .all();
      const total = db.select({ n: count() }).from(endUsers).where(eq(endUsers.appId, appId)).get()?.n ?? 0;
      return { rows, total };
    },

    setTester(appId: string, endUserId: string, tester: boolean): boolean {
      return (
        db
          .update(endUsers)
          .set({ tester })
          .where(and(eq(endUsers.appId, appId), eq(endUsers.id, endUserId)))
          .returning({ id: endUsers.id })
          .all().length > 0
      );
    },
  };
}

export type DevicesRepository = ReturnType<typeof devicesRepository>;
