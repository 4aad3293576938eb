import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../database';
import { promised } from '../promised';
import { devices, endUsers } from '../../schema';
import { newId } from '../../../lib/ids';
import { deviceTokenKind } from '../../../modules/tokens/tokens.repository';
import { DEVICE_KINDS_SQL, tokensStatements } from './tokens';
import type { DeviceRow, DeviceInput, TargetDevice, Audience, SendTarget, DeviceWithTokens, DevicesRepository } from '../../../modules/devices/devices.repository';

function devicesStatements(db: Db) {
  const tokens = tokensStatements(db);
  // A device is valid while its registration token is active in the ledger.
  const targetColumns = `SELECT d.id, d.end_user_id AS endUserId, d.platform, d.os_version AS osVersion, d.created_at AS createdAt, t.id AS tokenId,
       (SELECT p.id FROM tokens p WHERE p.device_id = d.id AND p.kind = 'apns_push_to_start' AND p.attributes_type IS NULL AND p.state = 'active') AS pushToStartTokenId
       FROM devices d JOIN tokens t ON t.device_id = d.id AND t.kind IN ${DEVICE_KINDS_SQL} AND t.state = 'active'`;
  const allTargets = db.$client.query<TargetDevice, [string]>(`${targetColumns} WHERE d.app_id = ? ORDER BY d.end_user_id, d.created_at`);
  const usersTargets = db.$client.query<TargetDevice, [string, string]>(
    `${targetColumns} WHERE d.app_id = ? AND d.end_user_id IN (SELECT value FROM json_each(?)) ORDER BY d.end_user_id, d.created_at`,
  );
  // One end user (every activity update and end): a plain lookup, without building JSON for json_each.
  const userTargets = db.$client.query<TargetDevice, [string, string]>(
    `${targetColumns} WHERE d.app_id = ? AND d.end_user_id = ? ORDER BY d.created_at`,
  );
  // A send needs only the device and its token: no push-to-start lookup, and rows streamed, not loaded.
  const sendColumns = `SELECT d.id AS deviceId, t.id AS tokenId
       FROM devices d JOIN tokens t ON t.device_id = d.id AND t.kind IN ${DEVICE_KINDS_SQL} AND t.state = 'active'`;
  const testerOnly = `(?2 = 0 OR EXISTS (SELECT 1 FROM end_users u WHERE u.app_id = d.app_id AND u.id = d.end_user_id AND u.tester = 1))`;
  const allSendTargets = db.$client.query<SendTarget, [string, number]>(`${sendColumns} WHERE d.app_id = ?1 AND ${testerOnly} ORDER BY d.end_user_id, d.created_at`);
  const usersSendTargets = db.$client.query<SendTarget, [string, number, string]>(
    `${sendColumns} WHERE d.app_id = ?1 AND ${testerOnly} AND d.end_user_id IN (SELECT value FROM json_each(?3)) ORDER BY d.end_user_id, d.created_at`,
  );
  const withTokens = `SELECT d.id, d.app_id AS appId, d.end_user_id AS endUserId, d.platform, d.token, d.environment, d.os_version AS osVersion,
       d.created_at AS createdAt, d.updated_at AS updatedAt, t.state AS tokenState, t.invalid_reason AS invalidReason,
       EXISTS (SELECT 1 FROM tokens p WHERE p.device_id = d.id AND p.kind = 'apns_push_to_start' AND p.attributes_type IS NULL AND p.state = 'active') AS hasPushToStartToken
       FROM devices d LEFT JOIN tokens t ON t.device_id = d.id AND t.kind IN ${DEVICE_KINDS_SQL}`;
  const listWithTokens = db.$client.query<DeviceWithTokens, [string, string | null, number, number]>(
    `${withTokens} WHERE d.app_id = ?1 AND (?2 IS NULL OR d.end_user_id = ?2) ORDER BY d.created_at DESC, d.id DESC LIMIT ?3 OFFSET ?4`,
  );
  const oneWithTokens = db.$client.query<DeviceWithTokens, [string, string]>(`${withTokens} WHERE d.app_id = ? AND d.id = ?`);
  const asView = (row: DeviceWithTokens): DeviceWithTokens => ({ ...row, hasPushToStartToken: Boolean(row.hasPushToStartToken) });
  const testerFilter = db.$client.query<{ id: string }, [string]>(`SELECT id FROM end_users WHERE app_id = ? AND tester = 1`);
  const audience = db.$client.query<Audience, [string, number]>(
    `SELECT count(DISTINCT d.end_user_id) AS endUsers, count(*) AS devices, coalesce(sum(d.platform = 'ios'), 0) AS ios,
            coalesce(sum(d.platform = 'android'), 0) AS android,
            coalesce(sum(d.platform = 'ios' AND EXISTS (SELECT 1 FROM tokens p WHERE p.device_id = d.id AND p.kind = 'apns_push_to_start' AND p.attributes_type IS NULL AND p.state = 'active')), 0) AS iosStartable
       FROM devices d JOIN tokens t ON t.device_id = d.id AND t.kind IN ${DEVICE_KINDS_SQL} AND t.state = 'active'
      WHERE d.app_id = ?1 AND (?2 = 0 OR d.end_user_id IN (SELECT id FROM end_users WHERE app_id = ?1 AND tester = 1))`,
  );
  return {
    /** How many end users and valid devices a send or start to everyone (or every tester) reaches: what a confirmation names. */
    audience(appId: string, testersOnly: boolean): Audience {
      return audience.get(appId, testersOnly ? 1 : 0)!;
    },

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
     * The same devices as `targets`, as the outbox needs them for a notification send, read one by
     * one as the caller iterates (inside its transaction): a send to 1,000,000 devices never holds
     * them all in memory.
     */
    sendTargets(appId: string, filter: { endUserIds?: string[]; testersOnly?: boolean } = {}): IterableIterator<SendTarget> {
      const testers = filter.testersOnly ? 1 : 0;
      return filter.endUserIds === undefined ? allSendTargets.iterate(appId, testers) : usersSendTargets.iterate(appId, testers, JSON.stringify(filter.endUserIds));
    },

    /**
     * Registers or refreshes a device (one per app, platform and token) and its end user, and
     * writes its tokens into the ledger, in one transaction. A token registered again is valid
     * again, even if a provider had refused it; a push-to-start token moves to this device row if
     * another row had it (the same phone after a device-token rotation).
     */
    /** `newDeviceId`: the id a new device gets instead of a generated one (the demo's fixed ids). */
    upsert(appId: string, input: DeviceInput, now: number, newDeviceId?: string): { device: DeviceWithTokens; created: boolean } {
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
          environment: input.environment ?? existing?.environment ?? null,
          osVersion: input.osVersion ?? existing?.osVersion ?? null,
          updatedAt: now,
        };
        let device: DeviceRow;
        if (existing) {
          tx.update(devices).set(fields).where(eq(devices.id, existing.id)).run();
          device = { ...existing, ...fields };
          if (existing.environment !== fields.environment) tokens.setEnvironment(device.id, fields.environment);
        } else {
          device = { id: newDeviceId ?? newId('dev', now), appId, platform: input.platform, token: input.token, createdAt: now, ...fields };
          tx.insert(devices).values(device).run();
        }
        tokens.report(appId, deviceTokenKind(input.platform), input.token, device.id, device.environment, now);
        if (input.pushToStartToken && input.platform === 'ios') tokens.report(appId, 'apns_push_to_start', input.pushToStartToken, device.id, device.environment, now);
        return { device: asView(oneWithTokens.get(appId, device.id)!), created: !existing };
      }, { behavior: 'immediate' });
    },

    find(appId: string, id: string): DeviceWithTokens | undefined {
      const row = oneWithTokens.get(appId, id);
      return row ? asView(row) : undefined;
    },

    remove(appId: string, id: string): boolean {
      return db.delete(devices).where(and(eq(devices.appId, appId), eq(devices.id, id))).returning({ id: devices.id }).all().length > 0;
    },

    list(appId: string, filter: { endUserId?: string }, limit: number, offset: number) {
      const where = and(eq(devices.appId, appId), filter.endUserId ? eq(devices.endUserId, filter.endUserId) : undefined);
      const rows = listWithTokens.all(appId, filter.endUserId || null, limit, offset).map(asView);
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
          devices: sql<number>`(SELECT count(*) FROM devices d JOIN tokens t ON t.device_id = d.id AND t.kind IN ${sql.raw(DEVICE_KINDS_SQL)} AND t.state = 'active'
            WHERE d.app_id = end_users.app_id AND d.end_user_id = end_users.id)`,
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

/** The repository over devicesStatements: every method returns a Promise. */
export const devicesRepository = (db: Db): DevicesRepository => promised(devicesStatements(db));
