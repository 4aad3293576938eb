import type { AttemptRow, DeliveryFilter, DeliveryRow, LedgerRow } from './delivery-history.types';
import type { Dialect } from '../../../db/sql/dialect';
import { contains, indexedBy, jsonField } from '../../../db/sql/fragments';
import type { Param, Sql } from '../../../db/sql/sql';
import { oneOff, statement } from '../../../db/sql/statement';
import { repository } from '../../../db/sql/repository';

const COLUMNS = (d: Dialect) => `d.id, m.kind, d.activity_id AS "activityId", d.device_id AS "deviceId", dev.end_user_id AS "endUserId",
  COALESCE(m.template_slug, ${jsonField(d, 'm.content', 'templateSlug')}) AS "templateSlug", d.token_id AS "tokenId", dev.platform, d.provider,
  d.status, d.attempts, d.provider_id AS "providerId", d.reason, d.sent_payload AS "sentPayload", m.sent_body AS "messageBody", d.created_at AS "createdAt",
  d.updated_at AS "updatedAt", d.next_attempt_at AS "nextAttemptAt"
  FROM deliveries d JOIN messages m ON m.id = d.message_id LEFT JOIN devices dev ON dev.id = d.device_id`;
const DELIVERY = { numbers: ['id', 'tokenId', 'createdAt', 'updatedAt', 'nextAttemptAt'] };

const byId = statement<DeliveryRow>((d) => `SELECT ${COLUMNS(d)} WHERE d.app_id = $1 AND d.id = $2`, DELIVERY);
const attempts = statement<AttemptRow>(
  `SELECT attempt, at, provider, provider_id AS "providerId", reason FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt`,
  { numbers: ['at'] },
);
const ledger = statement<LedgerRow>(
  `SELECT id, kind, state, environment, invalid_reason AS "invalidReason", invalidated_at AS "invalidatedAt", reported_at AS "reportedAt",
          created_at AS "createdAt", activity_id AS "activityId" FROM tokens WHERE id = $1`,
  { numbers: ['id', 'invalidatedAt', 'reportedAt', 'createdAt'] },
);
const content = statement<{ content: string }>('SELECT m.content FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.id = $1');
const first = statement<{ id: number | null }>('SELECT min(id) AS id FROM deliveries WHERE app_id = $1', { numbers: ['id'] });

/**
 * Deliveries to a set of devices (`devices`: a subquery of device ids), through indexes:
 * notifications to the devices' tokens (deliveries_notification_token); Live Activity deliveries to
 * those tokens, found through the activities that ran on the devices or belong to their end users
 * (deliveries_activity: updates keep no token index of their own); and those still waiting for a
 * token on them (deliveries_tokenless_device). A token is the device's as the ledger has it now: a
 * push-to-start token that moved to a new device row (the same phone after a token rotation) takes
 * its deliveries along.
 */
function toDevices(d: Dialect, devices: string): string {
  const tokens = `SELECT id FROM tokens WHERE device_id IN (${devices})`;
  const activities = `SELECT activity_id FROM activity_instances WHERE device_id IN (${devices})
                      UNION SELECT a.id FROM activities a JOIN devices dev ON dev.app_id = a.app_id AND dev.end_user_id = a.end_user_id WHERE dev.id IN (${devices})`;
  // INDEXED BY on SQLite: without statistics its planner would read `activity_id IS NULL` through
  // deliveries_activity, every notification of the outbox.
  return `d.id IN (SELECT id FROM deliveries${indexedBy(d, 'deliveries_notification_token')} WHERE activity_id IS NULL AND token_id IN (${tokens})
                   UNION ALL SELECT id FROM deliveries WHERE activity_id IN (${activities}) AND token_id IN (${tokens})
                   UNION ALL SELECT id FROM deliveries WHERE token_id IS NULL AND device_id IN (${devices}))`;
}

/**
 * The WHERE clause of a filter ($1 is the app; a parameter may be used several times). Each
 * narrowing filter goes through an index: end user and device through their tokens and activities
 * (toDevices), template through messages_app_template then deliveries_message, activity through
 * deliveries_activity. Kind, reason and time range then only narrow the rows those (or
 * deliveries_app) yield.
 */
function where(appId: string, f: DeliveryFilter): { text: (d: Dialect) => string; params: Param[] } {
  const params: Param[] = [appId];
  const p = (value: Param) => `$${params.push(value)}`;
  const clauses: ((d: Dialect) => string)[] = [() => 'd.app_id = $1'];
  const add = (clause: string | ((d: Dialect) => string)) => clauses.push(typeof clause === 'string' ? () => clause : clause);
  if (f.status) add(`d.status = ${p(f.status)}`);
  if (f.kind) add(`m.kind = ${p(f.kind)}`);
  if (f.endUserId) {
    const devices = `SELECT id FROM devices WHERE app_id = $1 AND end_user_id = ${p(f.endUserId)}`;
    add((d) => toDevices(d, devices));
  }
  if (f.deviceId) {
    const device = p(f.deviceId);
    add((d) => toDevices(d, device));
  }
  if (f.activityId) add(`d.activity_id = ${p(f.activityId)}`);
  if (f.messageId) {
    const main = `SELECT message_id FROM notification_messages WHERE app_id = $1 AND public_id = ${p(f.messageId)}`;
    // The message and its language variants, through deliveries_message.
    add(`d.id IN (SELECT id FROM deliveries WHERE message_id IN (${main} UNION ALL SELECT message_id FROM notification_message_variants WHERE main_message_id IN (${main})))`);
  }
  // Written as a lookup of ids, so SQLite's planner walks deliveries_message instead of every delivery of the app.
  if (f.templateSlug) add(`d.id IN (SELECT id FROM deliveries WHERE message_id IN (SELECT id FROM messages WHERE app_id = $1 AND template_slug = ${p(f.templateSlug)}))`);
  if (f.reason) {
    const reason = p(f.reason);
    add((d) => contains(d, 'lower(d.reason)', `lower(${reason})`));
  }
  if (f.since !== undefined) add(`d.created_at >= ${p(f.since)}`);
  if (f.until !== undefined) add(`d.created_at < ${p(f.until)}`);
  return { text: (d) => clauses.map((c) => c(d)).join(' AND '), params };
}

/** The console's and admin API's view of the outbox: search, one delivery, its attempts and token. */
export const deliveryHistoryRepository = repository((sql: Sql) => {
  return {
    /** Newest first; `total` counts every match, not the page. Search texts are per filter shape (bun:sqlite caches a few). */
    async search(appId: string, filter: DeliveryFilter, limit: number, offset: number): Promise<{ rows: DeliveryRow[]; total: number }> {
      const w = where(appId, filter);
      const n = w.params.length;
      const page = oneOff<DeliveryRow>((d) => `SELECT ${COLUMNS(d)} WHERE ${w.text(d)} ORDER BY d.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, DELIVERY);
      const rows = await sql.all(page, [...w.params, limit, offset]);
      const join = filter.kind !== undefined ? 'JOIN messages m ON m.id = d.message_id' : '';
      const count = oneOff<{ n: number }>((d) => `SELECT count(*) AS n FROM deliveries d ${join} WHERE ${w.text(d)}`, { numbers: ['n'] });
      return { rows, total: (await sql.one(count, w.params))!.n };
    },
    get: (appId: string, id: number): Promise<DeliveryRow | undefined> => sql.one(byId, [appId, id]),
    attempts: (id: number): Promise<AttemptRow[]> => sql.all(attempts, [id]),
    ledgerEntry: (tokenId: number): Promise<LedgerRow | undefined> => sql.one(ledger, [tokenId]),
    /** The provider-neutral content queued (what the request was rendered from). */
    content: async (id: number): Promise<string | undefined> => (await sql.one(content, [id]))?.content,
    /** The app's oldest delivery id, if it has any (ids count across apps). */
    firstId: async (appId: string): Promise<number | undefined> => (await sql.one(first, [appId]))?.id ?? undefined,
  };
});

export type DeliveryHistoryRepository = ReturnType<typeof deliveryHistoryRepository>;
