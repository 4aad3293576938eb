import type { Audience, AudienceFilter, DeviceInput, DeviceRow, DeviceWithTokens, SendFilter, SendTarget, TargetDevice, TargetFilter } from './devices.types';
import { deviceTokenKind } from '../tokens/tokens.types';
import { newId } from '../../lib/ids';
import type { Dialect } from '../../db/sql/dialect';
import type { Sql } from '../../db/sql/sql';
import { oneOff, statement } from '../../db/sql/statement';
import { audienceCondition } from './audience-filter';
import { DEVICE_KINDS_SQL, tokensRepository } from '../tokens/tokens.repository';
import { repository } from '../../db/sql/repository';
import { BUILT_IN_ATTRIBUTES_TYPE } from './typed-push-to-start';

// A device is valid while its registration token is active in the ledger, and while it has an end
// user: an erased end user's device waiting for its activity's end push has none (end-users.ts).
const VALID = `FROM devices d JOIN tokens t ON t.device_id = d.id AND t.kind IN ${DEVICE_KINDS_SQL} AND t.state = 'active' AND d.end_user_id <> ''`;
// The IsletActivityAttributes token (attributes_type null): the built-in templates' starts use it.
const PUSH_TO_START = `SELECT p.id FROM tokens p WHERE p.device_id = d.id AND p.kind = 'apns_push_to_start' AND p.attributes_type IS NULL AND p.state = 'active'`;
const TARGET_COLUMNS = `SELECT d.id, d.end_user_id AS "endUserId", d.platform, d.os_version AS "osVersion", d.created_at AS "createdAt", t.id AS "tokenId",
     (${PUSH_TO_START}) AS "pushToStartTokenId" ${VALID}`;
const TARGET = { numbers: ['createdAt', 'tokenId', 'pushToStartTokenId'] };
// Every attributes type the device holds an active push-to-start token for, comma-joined (Swift type names have no comma); null: none.
const pushToStartTypes = (d: Dialect) =>
  `(SELECT ${d.name === 'postgres' ? 'string_agg' : 'group_concat'}(COALESCE(p.attributes_type, '${BUILT_IN_ATTRIBUTES_TYPE}'), ',') FROM tokens p
     WHERE p.device_id = d.id AND p.kind = 'apns_push_to_start' AND p.state = 'active')`;
const activeKind = (kind: string) => `EXISTS (SELECT 1 FROM tokens w WHERE w.device_id = d.id AND w.kind = '${kind}' AND w.state = 'active')`;
const WITH_TOKENS = (d: Dialect) => `SELECT d.id, d.app_id AS "appId", d.end_user_id AS "endUserId", d.platform, d.token, d.environment, d.os_version AS "osVersion",
     d.locale, d.time_zone AS "timeZone", d.frequent_pushes_enabled AS "frequentPushesEnabled", d.created_at AS "createdAt", d.updated_at AS "updatedAt", t.state AS "tokenState", t.invalid_reason AS "invalidReason",
     ${pushToStartTypes(d)} AS "pushToStartTypes", ${activeKind('apns_widget')} AS "hasWidgetToken", ${activeKind('apns_control')} AS "hasControlToken"
     FROM devices d LEFT JOIN tokens t ON t.device_id = d.id AND t.kind IN ${DEVICE_KINDS_SQL}`;
const WITH_TOKENS_SHAPE = { numbers: ['createdAt', 'updatedAt'], booleans: ['hasWidgetToken', 'hasControlToken', 'frequentPushesEnabled'] };
const COUNT = { numbers: ['n'] };

const audience = statement<Audience>(
  (d) => `SELECT count(DISTINCT d.end_user_id) AS "endUsers", count(*) AS devices, count(*) FILTER (WHERE d.platform = 'ios') AS ios,
                 count(*) FILTER (WHERE d.platform = 'android') AS android, count(*) FILTER (WHERE d.platform = 'web') AS web,
                 count(*) FILTER (WHERE d.platform = 'ios' AND EXISTS (${PUSH_TO_START})) AS "iosStartable"
            ${VALID}
           WHERE d.app_id = $1 AND (NOT ${d.typed('$2', 'boolean')} OR d.end_user_id IN (SELECT id FROM end_users WHERE app_id = $1 AND tester))`,
  { numbers: ['endUsers', 'devices', 'ios', 'android', 'web', 'iosStartable'] },
);
const allTargets = statement<TargetDevice>(`${TARGET_COLUMNS} WHERE d.app_id = $1 ORDER BY d.end_user_id, d.created_at`, TARGET);
// One end user (every activity update and end): a plain lookup, without a list parameter.
const userTargets = statement<TargetDevice>(`${TARGET_COLUMNS} WHERE d.app_id = $1 AND d.end_user_id = $2 ORDER BY d.created_at`, TARGET);
const usersTargets = statement<TargetDevice>(
  (d) => `${TARGET_COLUMNS} WHERE d.app_id = $1 AND ${d.inList('d.end_user_id', '$2')} ORDER BY d.end_user_id, d.created_at`,
  TARGET,
);
// A send or start to an audience: built per request (its tags decide the text), once per send.
const audienceTargets = (audience: AudienceFilter) => {
  const { where, params } = audienceCondition(audience, 1);
  return { statement: oneOff<TargetDevice>((d) => `${TARGET_COLUMNS} WHERE d.app_id = $1 AND ${where(d)} ORDER BY d.end_user_id, d.created_at`, TARGET), params };
};
const audienceCount = (audience: AudienceFilter) => {
  const { where, params } = audienceCondition(audience, 1);
  const text = (d: Dialect) => `SELECT count(*) AS devices, count(DISTINCT d.end_user_id) AS users ${VALID} WHERE d.app_id = $1 AND ${where(d)}`;
  return { statement: oneOff<{ devices: number; users: number }>(text, { numbers: ['devices', 'users'] }), params };
};
const testers = statement<{ id: string }>('SELECT id FROM end_users WHERE app_id = $1 AND tester');

// A send needs only the device and its token: no push-to-start lookup, and rows streamed, not loaded.
const SEND_COLUMNS = `SELECT d.id AS "deviceId", t.id AS "tokenId", d.locale, d.end_user_id AS "endUserId", d.time_zone AS "timeZone" ${VALID}`;
const testerOnly = (d: Dialect) =>
  `(NOT ${d.typed('$2', 'boolean')} OR EXISTS (SELECT 1 FROM end_users u WHERE u.app_id = d.app_id AND u.id = d.end_user_id AND u.tester))`;
const allSendTargets = statement<SendTarget>((d) => `${SEND_COLUMNS} WHERE d.app_id = $1 AND ${testerOnly(d)} ORDER BY d.end_user_id, d.created_at`, {
  numbers: ['tokenId'],
});
const usersSendTargets = statement<SendTarget>(
  (d) => `${SEND_COLUMNS} WHERE d.app_id = $1 AND ${testerOnly(d)} AND ${d.inList('d.end_user_id', '$3')} ORDER BY d.end_user_id, d.created_at`,
  { numbers: ['tokenId'] },
);
// A `sendAtLocal` part: the devices whose own zone (else the app's default, `fallback`) is one of the part's (`list`).
const inZones = (d: Dialect, fallback: string, list: string) => d.inList(`COALESCE(d.time_zone, ${d.typed(fallback, 'text')})`, list);
const allZoneSendTargets = statement<SendTarget>(
  (d) => `${SEND_COLUMNS} WHERE d.app_id = $1 AND ${testerOnly(d)} AND ${inZones(d, '$3', '$4')} ORDER BY d.end_user_id, d.created_at`,
  { numbers: ['tokenId'] },
);
const usersZoneSendTargets = statement<SendTarget>(
  (d) => `${SEND_COLUMNS} WHERE d.app_id = $1 AND ${testerOnly(d)} AND ${d.inList('d.end_user_id', '$3')} AND ${inZones(d, '$4', '$5')} ORDER BY d.end_user_id, d.created_at`,
  { numbers: ['tokenId'] },
);

const audienceSendTargets = (audience: AudienceFilter, zones: SendFilter['timeZones']) => {
  const { where, params } = audienceCondition(audience, 2);
  // A sendAtLocal part to an audience: its zones' parameters follow the audience's.
  const fallback = `$${3 + params.length}`;
  const list = `$${4 + params.length}`;
  if (zones) params.push(zones.defaultZone, zones.zones);
  const inPart = (d: Dialect) => (zones ? ` AND ${inZones(d, fallback, list)}` : '');
  const text = (d: Dialect) => `${SEND_COLUMNS} WHERE d.app_id = $1 AND ${testerOnly(d)} AND ${where(d)}${inPart(d)} ORDER BY d.end_user_id, d.created_at`;
  return { statement: oneOff<SendTarget>(text, { numbers: ['tokenId'] }), params };
};

const touchEndUser = statement(
  (d) => `INSERT INTO end_users (app_id, id, tester, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $4)
          ON CONFLICT (app_id, id) DO UPDATE SET last_seen_at = $4, tester = COALESCE(${d.typed('$5', 'boolean')}, end_users.tester)`,
);
// PostgreSQL locks the row against a concurrent registration of the same token; SQLite's
// transaction already holds the write lock (BEGIN IMMEDIATE) and has no FOR UPDATE.
const existingDevice = statement<DeviceRow>(
  (d) => `SELECT id, app_id AS "appId", end_user_id AS "endUserId", platform, token, environment, os_version AS "osVersion",
                 locale, time_zone AS "timeZone", frequent_pushes_enabled AS "frequentPushesEnabled", created_at AS "createdAt", updated_at AS "updatedAt"
            FROM devices WHERE app_id = $1 AND platform = $2 AND token = $3${d.forUpdate}`,
  { numbers: ['createdAt', 'updatedAt'], booleans: ['frequentPushesEnabled'] },
);
const updateDevice = statement('UPDATE devices SET end_user_id = $1, environment = $2, os_version = $3, locale = $4, time_zone = $5, updated_at = $6 WHERE id = $7');
const insertDevice = statement(
  `INSERT INTO devices (id, app_id, end_user_id, platform, token, environment, os_version, locale, time_zone, created_at, updated_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
);
const oneWithTokens = statement<DeviceWithTokens>((d) => `${WITH_TOKENS(d)} WHERE d.app_id = $1 AND d.id = $2`, WITH_TOKENS_SHAPE);
const listWithTokens = statement<DeviceWithTokens>(
  (d) => `${WITH_TOKENS(d)} WHERE d.app_id = $1 AND (${d.typed('$2', 'text')} IS NULL OR d.end_user_id = $2) ORDER BY d.created_at DESC, d.id DESC LIMIT $3 OFFSET $4`,
  WITH_TOKENS_SHAPE,
);
const countDevices = statement<{ n: number }>((d) => `SELECT count(*) AS n FROM devices WHERE app_id = $1 AND (${d.typed('$2', 'text')} IS NULL OR end_user_id = $2)`, COUNT);
const remove = statement('DELETE FROM devices WHERE app_id = $1 AND id = $2');
const listEndUsers = statement<{ id: string; tester: boolean; createdAt: number; lastSeenAt: number; devices: number }>(
  `SELECT id, tester, created_at AS "createdAt", last_seen_at AS "lastSeenAt",
          (SELECT count(*) ${VALID} WHERE d.app_id = end_users.app_id AND d.end_user_id = end_users.id) AS devices
     FROM end_users WHERE app_id = $1 ORDER BY last_seen_at DESC, id LIMIT $2 OFFSET $3`,
  { numbers: ['createdAt', 'lastSeenAt', 'devices'], booleans: ['tester'] },
);
const countEndUsers = statement<{ n: number }>('SELECT count(*) AS n FROM end_users WHERE app_id = $1', COUNT);
const setTester = statement('UPDATE end_users SET tester = $1 WHERE app_id = $2 AND id = $3');

/** Devices and end users. */
export const devicesRepository = repository((sql: Sql) => {
  return {
    /** How many end users and valid devices a send or start to everyone (or every tester) reaches: what a confirmation names. */
    audience: async (appId: string, testersOnly: boolean): Promise<Audience> => (await sql.one(audience, [appId, testersOnly]))!,

    /** How many valid devices, and of how many end users, an audience reaches. */
    async countAudience(appId: string, filter: AudienceFilter): Promise<{ devices: number; users: number }> {
      const count = audienceCount(filter);
      return (await sql.one(count.statement, [appId, ...count.params]))!;
    },

    /**
     * The valid devices of the given end users (all connected end users when `endUserIds` is
     * undefined) or of an audience, optionally only testers', ordered by end user then registration time.
     * Unknown end user ids simply match nothing.
     */
    async targets(appId: string, filter: TargetFilter = {}): Promise<TargetDevice[]> {
      const ids = filter.endUserIds;
      const byAudience = filter.audience && audienceTargets(filter.audience);
      const rows = byAudience
        ? await sql.all(byAudience.statement, [appId, ...byAudience.params])
        : ids === undefined
          ? await sql.all(allTargets, [appId])
          : ids.length === 1
            ? await sql.all(userTargets, [appId, ids[0]!])
            : await sql.all(usersTargets, [appId, ids]);
      if (!filter.testersOnly) return rows;
      const testerIds = new Set((await sql.all(testers, [appId])).map((r) => r.id));
      return rows.filter((r) => testerIds.has(r.endUserId));
    },

    // SQLite reads the rows as the caller iterates (inside its transaction); PostgreSQL reads them
    // at once (see Sql.iterate), so a send there holds its targets' ids in memory.
    /**
     * The same devices as `targets`, as the outbox needs them for a notification send, read one by
     * one as the caller iterates (inside its transaction): a send to 1,000,000 devices never holds
     * them all in memory.
     */
    sendTargets(appId: string, filter: SendFilter = {}): Promise<IterableIterator<SendTarget>> {
      if (filter.audience) {
        const { statement, params } = audienceSendTargets(filter.audience, filter.timeZones);
        return sql.iterate(statement, [appId, Boolean(filter.testersOnly), ...params]);
      }
      const zones = filter.timeZones;
      if (zones)
        return filter.endUserIds === undefined
          ? sql.iterate(allZoneSendTargets, [appId, Boolean(filter.testersOnly), zones.defaultZone, zones.zones])
          : sql.iterate(usersZoneSendTargets, [appId, Boolean(filter.testersOnly), filter.endUserIds, zones.defaultZone, zones.zones]);
      return filter.endUserIds === undefined
        ? sql.iterate(allSendTargets, [appId, Boolean(filter.testersOnly)])
        : sql.iterate(usersSendTargets, [appId, Boolean(filter.testersOnly), filter.endUserIds]);
    },

    /**
     * Registers or refreshes a device (one per app, platform and token) and its end user, and
     * writes its tokens into the ledger, in one transaction. A token registered again is valid
     * again, even if a provider had refused it; a push-to-start token moves to this device row if
     * another row had it (the same phone after a device-token rotation). `newDeviceId`: the id a new
     * device gets instead of a generated one (the demo's fixed ids).
     */
    upsert: (appId: string, input: DeviceInput, now: number, newDeviceId?: string): Promise<{ device: DeviceWithTokens; created: boolean }> =>
      sql.atomic(async (tx) => {
        const tokens = tokensRepository(tx);
        await tx.run(touchEndUser, [appId, input.endUserId, input.tester ?? false, now, input.tester ?? null]);
        const existing = await tx.one(existingDevice, [appId, input.platform, input.token]);
        const fields = {
          endUserId: input.endUserId,
          environment: input.environment ?? existing?.environment ?? null,
          osVersion: input.osVersion ?? existing?.osVersion ?? null,
          locale: input.locale ?? existing?.locale ?? null,
          timeZone: input.timeZone ?? existing?.timeZone ?? null,
          updatedAt: now,
        };
        let device: DeviceRow;
        if (existing) {
          await tx.run(updateDevice, [fields.endUserId, fields.environment, fields.osVersion, fields.locale, fields.timeZone, now, existing.id]);
          device = { ...existing, ...fields };
          if (existing.environment !== fields.environment) await tokens.setEnvironment(device.id, fields.environment);
        } else {
          device = { id: newDeviceId ?? newId('dev', now), appId, platform: input.platform, token: input.token, createdAt: now, frequentPushesEnabled: null, ...fields };
          await tx.run(insertDevice, [
            device.id, appId, device.endUserId, device.platform, device.token, device.environment, device.osVersion, device.locale, device.timeZone, now, now,
          ]);
        }
        const tokenId = await tokens.report(appId, deviceTokenKind(input.platform), input.token, device.id, device.environment, now);
        if (input.secretSealed !== undefined) await tokens.setSecret(tokenId, input.secretSealed);
        if (input.pushToStartToken && input.platform === 'ios') await tokens.report(appId, 'apns_push_to_start', input.pushToStartToken, device.id, device.environment, now);
        if (input.platform === 'ios')
          for (const [type, value] of Object.entries(input.pushToStartTokens ?? {})) await tokens.report(appId, 'apns_push_to_start', value, device.id, device.environment, now, type);
        if (input.widgetPushToken && input.platform === 'ios') await tokens.report(appId, 'apns_widget', input.widgetPushToken, device.id, device.environment, now);
        // Controls: one token per control with a push handler; the set reported replaces the one before.
        const controls = input.controlPushTokens ?? (input.controlPushToken ? [input.controlPushToken] : undefined);
        if (controls && input.platform === 'ios') {
          for (const value of controls) await tokens.report(appId, 'apns_control', value, device.id, device.environment, now);
          await tokens.retireControlsBut(device.id, controls, now);
        }
        return { device: (await tx.one(oneWithTokens, [appId, device.id]))!, created: !existing };
      }),

    find: (appId: string, id: string): Promise<DeviceWithTokens | undefined> => sql.one(oneWithTokens, [appId, id]),

    remove: async (appId: string, id: string): Promise<boolean> => (await sql.run(remove, [appId, id])) > 0,

    async list(appId: string, filter: { endUserId?: string }, limit: number, offset: number): Promise<{ rows: DeviceWithTokens[]; total: number }> {
      const endUserId = filter.endUserId || null;
      const rows = await sql.all(listWithTokens, [appId, endUserId, limit, offset]);
      const total = (await sql.one(countDevices, [appId, endUserId]))!.n;
      return { rows, total };
    },

    async listEndUsers(appId: string, limit: number, offset: number): Promise<{ rows: { id: string; tester: boolean; createdAt: number; lastSeenAt: number; devices: number }[]; total: number }> {
      const rows = await sql.all(listEndUsers, [appId, limit, offset]);
      const total = (await sql.one(countEndUsers, [appId]))!.n;
      return { rows, total };
    },

    setTester: async (appId: string, endUserId: string, tester: boolean): Promise<boolean> => (await sql.run(setTester, [tester, appId, endUserId])) > 0,
  };
});

export type DevicesRepository = ReturnType<typeof devicesRepository>;
