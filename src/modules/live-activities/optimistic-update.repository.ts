import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';
import { supersedeSql } from '../delivery/outbox/outbox.repository';
import type { NewDelivery, Superseded } from '../delivery/outbox/outbox.types';
import type { AppRow } from '../apps/apps.types';
import { ACTIVITY_COLUMNS, ACTIVITY_SHAPE } from './activity-columns';
import { liveInstancesSql } from './instances.repository';
import type { InstanceTarget } from './instances.types';
import { TEMPLATE_COLUMNS } from './live-activity-templates.repository';
import type { TemplateRow } from './live-activity-templates.types';
import type { ActivityRow } from './live-activities.types';

/** What an update reads, in one statement without a lock (PostgreSQL only: optimistic-update.ts). */
export interface UpdateRead {
  row: ActivityRow;
  /** The row version read (PostgreSQL's `xmin`): the write goes through only while it is still the row's. */
  version: string;
  instances: InstanceTarget[];
  budget: Pick<AppRow, 'laPriority10PerHour' | 'laFrequentPriority10PerHour'>;
  apnsConfigured: boolean;
  /** The app's stored template of the activity's slug (none for a built-in's). */
  template: TemplateRow | undefined;
}

/** The update to write if the activity is still as read: every part is conditioned on it. */
export interface UpdateWrite {
  appId: string;
  activityId: string;
  /** What was read: `lastTimestamp` and the row version. */
  lastTimestamp: number;
  version: string;
  contentState: string;
  apnsTimestamp: number;
  now: number;
  kind: string;
  templateSlug: string;
  sentBody: string | null;
  /** One message per priority group (its content JSON), in order. */
  messages: readonly string[];
  /** The deliveries, each with the index (from 1) of its message in `messages`. */
  deliveries: readonly (NewDelivery & { message: number })[];
  /** The sliding hours of the instances the update goes to at priority 10. */
  spends: readonly { deviceId: string; window: string }[];
}

type ReadRow = ActivityRow & { version: string; instances: string; laPriority10PerHour: number | null; laFrequentPriority10PerHour: number | null; apnsConfigured: boolean; template: string | null };

// The activity, its live instances (oldest first), its app's budget and APNs settings and its
// app-defined template in one round trip.
const read = statement<ReadRow>(
  `SELECT act.*,
          (SELECT coalesce(json_agg(x), '[]') FROM (${liveInstancesSql('act.id')}) x)::text AS instances,
          p.la_priority10_per_hour AS "laPriority10PerHour", p.la_frequent_priority10_per_hour AS "laFrequentPriority10PerHour",
          p.apns_sealed IS NOT NULL AS "apnsConfigured",
          (SELECT row_to_json(t)::text FROM (SELECT ${TEMPLATE_COLUMNS} FROM live_activity_templates WHERE app_id = act."appId" AND slug = act."templateSlug") t) AS template
     FROM (SELECT ${ACTIVITY_COLUMNS}, xmin::text AS version FROM activities WHERE app_id = $1 AND id = $2) act
     LEFT JOIN apps p ON p.id = act."appId"`,
  { numbers: ACTIVITY_SHAPE.numbers, booleans: ['apnsConfigured'] },
);

// Everything the update's unit of work wrote, as one statement. `updated` writes the activity only
// while it is as read (an update, an end, a token report or an instance report since changes its
// row version: `findForWrite`); every other part reads `updated`, so it writes nothing when that
// wrote nothing, and waits for it (the activity's row lock) when it did. Every part sees the tables
// as they were before the statement: the supersede never touches the new deliveries. Message ids
// come from one sequence in insertion order, which follows m.n, so the k-th smallest is message k.
const write = statement<{ written: number; superseded: string }>(
  (d) => `WITH updated AS (
     UPDATE activities SET content_state = $3, last_timestamp = $4
      WHERE app_id = $1 AND id = $2 AND state = 'Active' AND last_timestamp = $5 AND xmin::text = $6
     RETURNING id),
   spent AS (
     UPDATE activity_instances i SET priority10_sent = s.w
       FROM updated, unnest($15::text[], $16::text[]) AS s(device_id, w)
      WHERE i.activity_id = updated.id AND i.device_id = s.device_id),
   superseded AS (${supersedeSql(d, '$7', '$2', '$11', ' AND EXISTS (SELECT 1 FROM updated)')}),
   message AS (
     INSERT INTO messages (app_id, kind, activity_id, content, template_slug, created_at, sent_body)
     SELECT $1, $8, $2, m.content, $9, $7, $10 FROM updated, unnest($17::text[]) WITH ORDINALITY AS m(content, n) ORDER BY m.n
     RETURNING id),
   numbered AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM message),
   queued AS (
     INSERT INTO deliveries (app_id, message_id, device_id, activity_id, token_id, status, hold_kind, attempts, next_attempt_at, reason, created_at, updated_at)
     SELECT $1, numbered.id, t.device_id, $2, t.token_id, t.status, t.hold_kind, 0, $7, t.reason, $7, $7
       FROM unnest($11::text[], $12::bigint[], $13::text[], $14::text[], $18::text[], $19::int[]) WITH ORDINALITY AS t(device_id, token_id, status, hold_kind, reason, message, n)
       JOIN numbered ON numbered.n = t.message
      ORDER BY t.n)
   SELECT (SELECT count(*) FROM updated) AS written, (SELECT coalesce(json_agg(superseded), '[]') FROM superseded)::text AS superseded`,
  { numbers: ['written'] },
);

/**
 * A Live Activity update on PostgreSQL in two statements and no transaction of its own (issue 49):
 * one read, then one write that goes through only if the activity is still as read (optimistic).
 */
export const optimisticUpdateRepository = repository((sql: Sql) => ({
  /** The activity (whatever its state) with what an update decides from; undefined when the app has no such activity. */
  async read(appId: string, id: string): Promise<UpdateRead | undefined> {
    const r = await sql.one(read, [appId, id]);
    if (!r) return undefined;
    const { version, instances, laPriority10PerHour, laFrequentPriority10PerHour, apnsConfigured, template, ...row } = r;
    return {
      row,
      version,
      instances: JSON.parse(instances) as InstanceTarget[],
      budget: { laPriority10PerHour, laFrequentPriority10PerHour },
      apnsConfigured,
      template: template === null ? undefined : (JSON.parse(template) as TemplateRow),
    };
  },

  /** Writes the update; `written` false (and nothing written) when the activity changed since it was read. */
  async write(u: UpdateWrite): Promise<{ written: boolean; superseded: Superseded[] }> {
    const column = <K extends keyof UpdateWrite['deliveries'][number]>(key: K) => u.deliveries.map((r) => r[key] ?? null) as (string | number | null)[];
    const row = (await sql.one(write, [
      u.appId, u.activityId, u.contentState, u.apnsTimestamp, u.lastTimestamp, u.version, u.now, u.kind, u.templateSlug, u.sentBody,
      column('deviceId'), column('tokenId'), column('status'), column('holdKind'),
      u.spends.map((s) => s.deviceId), u.spends.map((s) => s.window), [...u.messages], column('reason'), column('message'),
    ]))!;
    return { written: row.written === 1, superseded: JSON.parse(row.superseded) as Superseded[] };
  },
}));
