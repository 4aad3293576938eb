import type { ActivityRow } from '../live-activities/live-activities.types';
import type { Erased } from './end-users.types';
import type { Dialect } from '../../db/sql/dialect';
import type { Sql } from '../../db/sql/sql';
import { oneOff, statement, valuesList } from '../../db/sql/statement';
import { ACTIVITY_COLUMNS, ACTIVITY_SHAPE } from '../live-activities/activity-columns';
import { repository } from '../../db/sql/repository';

const COUNT = { numbers: ['n'] };
// A delivery that may still go out (its end push, above all).
const WAITING = `status IN ('pending', 'held', 'sending')`;
const USER_DEVICES = `SELECT id FROM devices WHERE app_id = $1 AND end_user_id = $2`;
const USER_ACTIVITIES = `SELECT id FROM activities WHERE app_id = $1 AND end_user_id = $2`;

const exists = statement<{ n: number }>(
  `SELECT (SELECT count(*) FROM end_users WHERE app_id = $1 AND id = $2) + (SELECT count(*) FROM end_user_tags WHERE app_id = $1 AND end_user_id = $2)
        + (SELECT count(*) FROM devices WHERE app_id = $1 AND end_user_id = $2) AS n`,
  COUNT,
);
const tags = statement<{ key: string; value: string }>('SELECT key, value FROM end_user_tags WHERE app_id = $1 AND end_user_id = $2 ORDER BY key');
const ensure = statement('INSERT INTO end_users (app_id, id, tester, created_at, last_seen_at) VALUES ($1, $2, $4, $3, $3) ON CONFLICT (app_id, id) DO NOTHING');
const clearTags = statement('DELETE FROM end_user_tags WHERE app_id = $1 AND end_user_id = $2');
const upsertTag = statement(
  'INSERT INTO end_user_tags (app_id, end_user_id, key, value) VALUES ($1, $2, $3, $4) ON CONFLICT (app_id, end_user_id, key) DO UPDATE SET value = excluded.value',
);
const removeTag = statement('DELETE FROM end_user_tags WHERE app_id = $1 AND end_user_id = $2 AND key = $3');
const active = statement<ActivityRow>(`SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE app_id = $1 AND end_user_id = $2 AND state = 'Active' ORDER BY id`, ACTIVITY_SHAPE);

// Erasure, in this order (see `erase`).
const tester = statement<{ tester: boolean }>('SELECT tester FROM end_users WHERE app_id = $1 AND id = $2', { booleans: ['tester'] });
const countDevices = statement<{ n: number }>(`SELECT count(*) AS n FROM devices WHERE app_id = $1 AND end_user_id = $2`, COUNT);
const countTokens = statement<{ n: number }>(`SELECT count(*) AS n FROM tokens WHERE device_id IN (${USER_DEVICES})`, COUNT);
const countActivities = statement<{ n: number }>(`SELECT count(*) AS n FROM activities WHERE app_id = $1 AND end_user_id = $2`, COUNT);
const countTags = statement<{ n: number }>('SELECT count(*) AS n FROM end_user_tags WHERE app_id = $1 AND end_user_id = $2', COUNT);
// Notifications already sent or waiting to the devices: they keep their counts in the message's
// status, lose what tied them to the person; waiting ones are not sent any more.
const forgetNotifications = statement(
  `UPDATE deliveries SET device_id = '', token_id = NULL, sent_payload = NULL,
          status = CASE WHEN status IN ('pending', 'held') THEN 'dropped' ELSE status END,
          reason = CASE WHEN status IN ('pending', 'held') THEN 'end user erased' ELSE reason END, hold_kind = NULL
    WHERE activity_id IS NULL AND status <> 'sending' AND token_id IN (SELECT id FROM tokens WHERE device_id IN (${USER_DEVICES}))`,
);
// What those notifications said, where every delivery of the message was to these devices (or to
// someone erased before): a message shared with others keeps its text, which is theirs too.
// The content keeps what the message's status and list read (template, release, public id).
const withoutTexts = (d: Dialect, keys = ['type', 'templateSlug', 'releaseVersion', 'messageId']) =>
  d.name === 'postgres'
    ? `json_build_object(${keys.map((k) => `'${k}', content::json->'${k}'`).join(', ')}, 'title', '', 'body', '')::text`
    : `json_object(${keys.map((k) => `'${k}', json_extract(content, '$.${k}')`).join(', ')}, 'title', '', 'body', '')`;
const forgetNotificationTexts = statement(
  (d) => `UPDATE messages SET content = ${withoutTexts(d)}, sent_body = NULL
    WHERE id IN (SELECT message_id FROM deliveries WHERE activity_id IS NULL AND token_id IN (SELECT id FROM tokens WHERE device_id IN (${USER_DEVICES})))
      AND NOT EXISTS (SELECT 1 FROM deliveries o WHERE o.message_id = messages.id AND o.device_id <> '' AND o.device_id NOT IN (${USER_DEVICES}))`,
);
// Activities kept for their end push: the requests already sent (attribute values, the
// push-to-start token in a start's URL) and the texts of their messages that no longer wait.
const forgetActivityRequests = statement(`UPDATE deliveries SET sent_payload = NULL, token_id = NULL WHERE activity_id IN (${USER_ACTIVITIES}) AND NOT ${WAITING}`);
const forgetActivityTexts = statement(
  `UPDATE messages SET content = '{}', sent_body = NULL
    WHERE id IN (SELECT message_id FROM deliveries WHERE activity_id IN (${USER_ACTIVITIES}))
      AND NOT EXISTS (SELECT 1 FROM deliveries w WHERE w.message_id = messages.id AND w.${WAITING})`,
);
// Tokens of kept devices that no waiting push goes to (push-to-start, the device's own).
const forgetTokens = statement(
  `DELETE FROM tokens WHERE device_id IN (${USER_DEVICES})
      AND id NOT IN (SELECT token_id FROM deliveries WHERE activity_id IN (${USER_ACTIVITIES}) AND token_id IS NOT NULL AND ${WAITING})`,
);
// Activities none of whose deliveries waits: their messages (deliveries cascade), then the rows
// (instances and activity tokens cascade).
const DONE_ACTIVITIES = `${USER_ACTIVITIES} AND NOT EXISTS (SELECT 1 FROM deliveries w WHERE w.activity_id = activities.id AND w.${WAITING})`;
const deleteActivityMessages = statement(`DELETE FROM messages WHERE id IN (SELECT message_id FROM deliveries WHERE activity_id IN (${DONE_ACTIVITIES}))`);
const deleteActivities = statement(`DELETE FROM activities WHERE id IN (${DONE_ACTIVITIES})`);
// The rest wait for their end push: kept without the person's id or data.
const anonymiseActivities = statement(`UPDATE activities SET end_user_id = '', attributes = '{}', content_state = '{}' WHERE app_id = $1 AND end_user_id = $2`);
// A device's waiting activity pushes, found through its activity instances (indexed by device,
// then deliveries by activity): the outbox has no index by device.
const END_WAITS = `EXISTS (SELECT 1 FROM activity_instances i JOIN deliveries w ON w.activity_id = i.activity_id AND w.device_id = i.device_id
                    WHERE i.device_id = devices.id AND w.${WAITING})`;
const deleteDevices = statement(`DELETE FROM devices WHERE app_id = $1 AND end_user_id = $2 AND NOT ${END_WAITS}`);
const anonymiseDevices = statement(`UPDATE devices SET end_user_id = '', os_version = NULL, locale = NULL, time_zone = NULL WHERE app_id = $1 AND end_user_id = $2`);
const deleteEndUser = statement('DELETE FROM end_users WHERE app_id = $1 AND id = $2');
// Their frequency cap's window (notifications/limits/frequency-caps.tables.ts): when they were sent notifications.
const deleteCapWindow = statement('DELETE FROM frequency_cap_windows WHERE app_id = $1 AND end_user_id = $2');
const limits = statement<{ quietHours: string | null; frequencyCap: string | null }>(
  'SELECT quiet_hours AS "quietHours", frequency_cap AS "frequencyCap" FROM end_users WHERE app_id = $1 AND id = $2',
);
const setQuietHours = statement('UPDATE end_users SET quiet_hours = $3 WHERE app_id = $1 AND id = $2');
const setFrequencyCap = statement('UPDATE end_users SET frequency_cap = $3 WHERE app_id = $1 AND id = $2');

// Leftovers of erasures whose end pushes went (or finally failed).
const PRUNABLE_ACTIVITIES = `SELECT id FROM activities WHERE app_id IN (SELECT id FROM apps) AND end_user_id = '' AND NOT EXISTS (SELECT 1 FROM deliveries w WHERE w.activity_id = activities.id AND w.${WAITING})`;
// Pushes of kept activities that went since (one device's end push while another's waits): the
// request sent and the message's recorded body say what the erasure removed.
const ERASED_ACTIVITIES = `SELECT id FROM activities WHERE app_id IN (SELECT id FROM apps) AND end_user_id = ''`;
const forgetSentRequests = statement(
  `UPDATE deliveries SET sent_payload = NULL, token_id = NULL
    WHERE activity_id IN (${ERASED_ACTIVITIES}) AND NOT ${WAITING} AND (sent_payload IS NOT NULL OR token_id IS NOT NULL)`,
);
const forgetSentBodies = statement(`UPDATE messages SET sent_body = NULL WHERE sent_body IS NOT NULL AND id IN (SELECT message_id FROM deliveries WHERE activity_id IN (${ERASED_ACTIVITIES}))`);
const pruneActivityMessages = statement(`DELETE FROM messages WHERE id IN (SELECT message_id FROM deliveries WHERE activity_id IN (${PRUNABLE_ACTIVITIES}))`);
const pruneActivities = statement(`DELETE FROM activities WHERE id IN (${PRUNABLE_ACTIVITIES})`);
// By app, so that the (app, end user) indexes find the leftovers without a scan of every row.
const pruneDevices = statement(`DELETE FROM devices WHERE app_id IN (SELECT id FROM apps) AND end_user_id = '' AND NOT ${END_WAITS}`);

/** End users' tags and erasure. */
export const endUsersRepository = repository((sql: Sql) => {
  const n = async (s: typeof countTags, appId: string, endUserId: string) => (await sql.one(s, [appId, endUserId]))!.n;
  return {
    /** Whether the app knows the end user: a registration, tags or a device. */
    exists: async (appId: string, endUserId: string): Promise<boolean> => (await n(exists, appId, endUserId)) > 0,

    /** The end user's tags, keys in order. */
    tags: async (appId: string, endUserId: string): Promise<Record<string, string>> => Object.fromEntries((await sql.all(tags, [appId, endUserId])).map((r) => [r.key, r.value])),

    /** Creates the end user when absent (a PUT or PATCH of tags before any device). */
    async ensure(appId: string, endUserId: string, now: number): Promise<void> {
      await sql.run(ensure, [appId, endUserId, now, false]);
    },

    /** Replaces the whole set of tags; the caller holds the transaction. */
    async replaceTags(appId: string, endUserId: string, values: Record<string, string>): Promise<void> {
      await sql.run(clearTags, [appId, endUserId]);
      const entries = Object.entries(values);
      if (entries.length === 0) return;
      // One statement for the whole set (at most 64 rows).
      const insert = oneOff(`INSERT INTO end_user_tags (app_id, end_user_id, key, value) VALUES ${valuesList(entries.length, 2, 2, (p) => `($1, $2, ${p.join(', ')})`)}`);
      await sql.run(insert, [appId, endUserId, ...entries.flat()]);
    },

    /** Sets the keys of `set` and removes those of `remove`; the caller holds the transaction. */
    async mergeTags(appId: string, endUserId: string, set: Record<string, string>, remove: readonly string[]): Promise<void> {
      for (const [key, value] of Object.entries(set)) await sql.run(upsertTag, [appId, endUserId, key, value]);
      for (const key of remove) await sql.run(removeTag, [appId, endUserId, key]);
    },

    /** The end user's own quiet hours and frequency cap (JSON; null: the app's apply). */
    limits: async (appId: string, endUserId: string) => (await sql.one(limits, [appId, endUserId])) ?? { quietHours: null, frequencyCap: null },

    /** Sets the given ones of the end user's own limits (JSON, or null: the app's apply); the end user exists. */
    async setLimits(appId: string, endUserId: string, values: { quietHours?: string | null; frequencyCap?: string | null }): Promise<void> {
      if (values.quietHours !== undefined) await sql.run(setQuietHours, [appId, endUserId, values.quietHours]);
      if (values.frequencyCap !== undefined) await sql.run(setFrequencyCap, [appId, endUserId, values.frequencyCap]);
    },

    /** The end user's Active activities (read to end them before an erasure). */
    activeActivities: (appId: string, endUserId: string): Promise<ActivityRow[]> => sql.all(active, [appId, endUserId]),

    /**
     * Removes everything Islet keeps about the end user, in the caller's transaction, after their
     * activities were ended: tags, the end_users row (tester flag), devices with their tokens and
     * activity instances, activities with their messages. A device or activity whose end push still
     * waits is kept anonymous (end user id ANONYMOUS, src/lib/anonymous.ts; no locale, zone, OS
     * version, data '{}', only the token the end push goes to, never a target) until `pruneErased`
     * finds it delivered; the requests already sent to it and its other messages' texts go now.
     * Notification deliveries to the devices lose their device, token and request; a message that
     * went only to them loses its texts.
     */
    erase: (appId: string, endUserId: string): Promise<Erased> =>
      sql.atomic(async (tx) => {
        const params = [appId, endUserId];
        const removed = {
          devices: (await tx.one(countDevices, params))!.n,
          tokens: (await tx.one(countTokens, params))!.n,
          tags: (await tx.one(countTags, params))!.n,
          liveActivities: (await tx.one(countActivities, params))!.n,
          tester: (await tx.one(tester, params))?.tester ?? false,
        };
        await tx.run(forgetNotificationTexts, params);
        await tx.run(forgetNotifications, params);
        await tx.run(deleteActivityMessages, params);
        await tx.run(deleteActivities, params);
        await tx.run(forgetActivityRequests, params);
        await tx.run(forgetActivityTexts, params);
        await tx.run(forgetTokens, params);
        await tx.run(anonymiseActivities, params);
        await tx.run(deleteDevices, params);
        await tx.run(anonymiseDevices, params);
        await tx.run(clearTags, params);
        await tx.run(deleteEndUser, params);
        await tx.run(deleteCapWindow, params);
        return removed;
      }),

    /**
     * Removes the anonymous leftovers of erasures whose end pushes are no longer waiting (and the
     * requests of those that went while another still waits); answers how many rows went. Run by the
     * delivery worker once such an end push is recorded, and by the retention job.
     */
    pruneErased: (): Promise<number> =>
      sql.atomic(async (tx) => {
        await tx.run(forgetSentRequests);
        await tx.run(forgetSentBodies);
        await tx.run(pruneActivityMessages);
        return (await tx.run(pruneActivities)) + (await tx.run(pruneDevices));
      }),
  };
});

export type EndUsersRepository = ReturnType<typeof endUsersRepository>;
