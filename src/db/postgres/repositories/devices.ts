import type { Audience, DeviceRow, DevicesRepository, DeviceWithTokens, SendTarget, TargetDevice } from '../../../modules/devices/devices.repository';
import { deviceTokenKind } from '../../../modules/tokens/tokens.repository';
import { DEVICE_KINDS_SQL } from '../../sqlite/repositories/tokens';
import { newId } from '../../../lib/ids';
import { all, one, run, type Pg, type PgScope } from '../query';
import { tokenStatementsPg } from './tokens';

const TARGET_COLUMNS = `SELECT d.id, d.end_user_id AS "endUserId", d.platform, d.os_version AS "osVersion", d.created_at AS "createdAt", t.id AS "tokenId",
     (SELECT p.id FROM tokens p WHERE p.device_id = d.id AND p.kind = 'apns_push_to_start' AND p.attributes_type IS NULL AND p.state = 'active') AS "pushToStartTokenId"
     FROM devices d JOIN tokens t ON t.device_id = d.id AND t.kind IN ${DEVICE_KINDS_SQL} AND t.state = 'active'`;
const TARGET_NUMBERS = ['createdAt', 'tokenId', 'pushToStartTokenId'];
const WITH_TOKENS = `SELECT d.id, d.app_id AS "appId", d.end_user_id AS "endUserId", d.platform, d.token, d.environment, d.os_version AS "osVersion",
     d.created_at AS "createdAt", d.updated_at AS "updatedAt", t.state AS "tokenState", t.invalid_reason AS "invalidReason",
     EXISTS (SELECT 1 FROM tokens p WHERE p.device_id = d.id AND p.kind = 'apns_push_to_start' AND p.attributes_type IS NULL AND p.state = 'active') AS "hasPushToStartToken"
     FROM devices d LEFT JOIN tokens t ON t.device_id = d.id AND t.kind IN ${DEVICE_KINDS_SQL}`;
const DEVICE_NUMBERS = ['createdAt', 'updatedAt'];

/** Devices and end users on PostgreSQL (see modules/devices/devices.repository.ts). */
export function devicesPg({ q, atomic }: PgScope): DevicesRepository {
  const oneWithTokens = (c: Pg, appId: string, id: string) => one<DeviceWithTokens>(c, `${WITH_TOKENS} WHERE d.app_id = $1 AND d.id = $2`, [appId, id], DEVICE_NUMBERS);
  const testerOnly = `($2::boolean = false OR EXISTS (SELECT 1 FROM end_users u WHERE u.app_id = d.app_id AND u.id = d.end_user_id AND u.tester))`;
  return {
    audience: async (appId, testersOnly) =>
      (await one<Audience>(
        q,
        `SELECT count(DISTINCT d.end_user_id)::int AS "endUsers", count(*)::int AS devices, count(*) FILTER (WHERE d.platform = 'ios')::int AS ios,
                count(*) FILTER (WHERE d.platform = 'android')::int AS android,
                count(*) FILTER (WHERE d.platform = 'ios' AND EXISTS (SELECT 1 FROM tokens p WHERE p.device_id = d.id AND p.kind = 'apns_push_to_start' AND p.attributes_type IS NULL AND p.state = 'active'))::int AS "iosStartable"
           FROM devices d JOIN tokens t ON t.device_id = d.id AND t.kind IN ${DEVICE_KINDS_SQL} AND t.state = 'active'
          WHERE d.app_id = $1 AND ($2::boolean = false OR d.end_user_id IN (SELECT id FROM end_users WHERE app_id = $1 AND tester))`,
        [appId, testersOnly],
      ))!,

    async targets(appId, filter = {}) {
      const ids = filter.endUserIds;
      const rows =
        ids === undefined
          ? await all<TargetDevice>(q, `${TARGET_COLUMNS} WHERE d.app_id = $1 ORDER BY d.end_user_id, d.created_at`, [appId], TARGET_NUMBERS)
          : await all<TargetDevice>(q, `${TARGET_COLUMNS} WHERE d.app_id = $1 AND d.end_user_id = ANY($2::text[]) ORDER BY d.end_user_id, d.created_at`, [appId, ids], TARGET_NUMBERS);
      if (!filter.testersOnly) return rows;
      const testers = new Set((await all<{ id: string }>(q, 'SELECT id FROM end_users WHERE app_id = $1 AND tester', [appId])).map((r) => r.id));
      return rows.filter((r) => testers.has(r.endUserId));
    },

    // Read whole: the driver has no row-at-a-time cursor here, so a send holds its targets' ids in memory.
    async sendTargets(appId, filter = {}) {
      const columns = `SELECT d.id AS "deviceId", t.id AS "tokenId"
         FROM devices d JOIN tokens t ON t.device_id = d.id AND t.kind IN ${DEVICE_KINDS_SQL} AND t.state = 'active'`;
      const rows =
        filter.endUserIds === undefined
          ? await all<SendTarget>(q, `${columns} WHERE d.app_id = $1 AND ${testerOnly} ORDER BY d.end_user_id, d.created_at`, [appId, Boolean(filter.testersOnly)], ['tokenId'])
          : await all<SendTarget>(
              q,
              `${columns} WHERE d.app_id = $1 AND ${testerOnly} AND d.end_user_id = ANY($3::text[]) ORDER BY d.end_user_id, d.created_at`,
              [appId, Boolean(filter.testersOnly), filter.endUserIds],
              ['tokenId'],
            );
      return rows[Symbol.iterator]();
    },

    upsert: (appId, input, now, newDeviceId) =>
      atomic(async (c) => {
        const tokens = tokenStatementsPg(c);
        await run(
          c,
          `INSERT INTO end_users (app_id, id, tester, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $4)
           ON CONFLICT (app_id, id) DO UPDATE SET last_seen_at = $4, tester = COALESCE($5::boolean, end_users.tester)`,
          [appId, input.endUserId, input.tester ?? false, now, input.tester ?? null],
        );
        const existing = await one<DeviceRow>(
          c,
          `SELECT id, app_id AS "appId", end_user_id AS "endUserId", platform, token, environment, os_version AS "osVersion", created_at AS "createdAt", updated_at AS "updatedAt"
             FROM devices WHERE app_id = $1 AND platform = $2 AND token = $3 FOR UPDATE`,
          [appId, input.platform, input.token],
          DEVICE_NUMBERS,
        );
        const fields = {
          endUserId: input.endUserId,
          environment: input.environment ?? existing?.environment ?? null,
          osVersion: input.osVersion ?? existing?.osVersion ?? null,
          updatedAt: now,
        };
        let device: DeviceRow;
        if (existing) {
          await run(c, 'UPDATE devices SET end_user_id = $1, environment = $2, os_version = $3, updated_at = $4 WHERE id = $5', [
            fields.endUserId,
            fields.environment,
            fields.osVersion,
            now,
            existing.id,
          ]);
          device = { ...existing, ...fields };
          if (existing.environment !== fields.environment) await tokens.setEnvironment(device.id, fields.environment);
        } else {
          device = { id: newDeviceId ?? newId('dev', now), appId, platform: input.platform, token: input.token, createdAt: now, ...fields };
          await run(
            c,
            'INSERT INTO devices (id, app_id, end_user_id, platform, token, environment, os_version, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
            [device.id, appId, device.endUserId, device.platform, device.token, device.environment, device.osVersion, device.createdAt, device.updatedAt],
          );
        }
        await tokens.report(appId, deviceTokenKind(input.platform), input.token, device.id, device.environment, now);
        if (input.pushToStartToken && input.platform === 'ios') await tokens.report(appId, 'apns_push_to_start', input.pushToStartToken, device.id, device.environment, now);
        return { device: (await oneWithTokens(c, appId, device.id))!, created: !existing };
      }),

    find: (appId, id) => oneWithTokens(q, appId, id),

    remove: async (appId, id) => (await run(q, 'DELETE FROM devices WHERE app_id = $1 AND id = $2', [appId, id])) > 0,

    async list(appId, filter, limit, offset) {
      const rows = await all<DeviceWithTokens>(
        q,
        `${WITH_TOKENS} WHERE d.app_id = $1 AND ($2::text IS NULL OR d.end_user_id = $2) ORDER BY d.created_at DESC, d.id DESC LIMIT $3 OFFSET $4`,
        [appId, filter.endUserId || null, limit, offset],
        DEVICE_NUMBERS,
      );
      const total = (await one<{ n: number }>(q, `SELECT count(*)::int AS n FROM devices WHERE app_id = $1 AND ($2::text IS NULL OR end_user_id = $2)`, [
        appId,
        filter.endUserId || null,
      ]))!.n;
      return { rows, total };
    },

    async listEndUsers(appId, limit, offset) {
      const rows = await all<{ id: string; tester: boolean; createdAt: number; lastSeenAt: number; devices: number }>(
        q,
        `SELECT id, tester, created_at AS "createdAt", last_seen_at AS "lastSeenAt",
                (SELECT count(*)::int FROM devices d JOIN tokens t ON t.device_id = d.id AND t.kind IN ${DEVICE_KINDS_SQL} AND t.state = 'active'
                  WHERE d.app_id = end_users.app_id AND d.end_user_id = end_users.id) AS devices
           FROM end_users WHERE app_id = $1 ORDER BY last_seen_at DESC, id LIMIT $2 OFFSET $3`,
        [appId, limit, offset],
        ['createdAt', 'lastSeenAt'],
      );
      const total = (await one<{ n: number }>(q, 'SELECT count(*)::int AS n FROM end_users WHERE app_id = $1', [appId]))!.n;
      return { rows, total };
    },

    setTester: async (appId, endUserId, tester) => (await run(q, 'UPDATE end_users SET tester = $1 WHERE app_id = $2 AND id = $3', [tester, appId, endUserId])) > 0,
  };
}
