import type { Db } from '../database';
import { promised } from '../promised';
import type { DeliveryFilter, DeliveryRow, AttemptRow, LedgerRow, DeliveryHistoryRepository } from '../../../modules/delivery/admin/delivery-history.repository';

const COLUMNS = `d.id, m.kind, d.activity_id AS activityId, d.device_id AS deviceId, dev.end_user_id AS endUserId,
  COALESCE(m.template_slug, json_extract(m.content, '$.templateSlug')) AS templateSlug, d.token_id AS tokenId, dev.platform, d.provider,
  d.status, d.attempts, d.provider_id AS providerId, d.reason, d.sent_payload AS sentPayload, m.sent_body AS messageBody, d.created_at AS createdAt,
  d.updated_at AS updatedAt, d.next_attempt_at AS nextAttemptAt
  FROM deliveries d JOIN messages m ON m.id = d.message_id LEFT JOIN devices dev ON dev.id = d.device_id`;

/**
 * Deliveries to a set of devices (`devices`: a subquery of device ids, `params` its parameters),
 * through indexes: notifications to the devices' tokens (deliveries_notification_token); Live
 * Activity deliveries to those tokens, found through the activities that ran on the devices or
 * belong to their end users (deliveries_activity: updates keep no token index of their own); and
 * those still waiting for a token on them (deliveries_tokenless_device). A token is the device's
 * as the ledger has it now: a push-to-start token that moved to a new device row (the same phone
 * after a token rotation) takes its deliveries along.
 */
function toDevices(devices: string, params: (string | number)[]): { sql: string; params: (string | number)[] } {
  const tokens = `SELECT id FROM tokens WHERE device_id IN (${devices})`;
  const activities = `SELECT activity_id FROM activity_instances WHERE device_id IN (${devices})
                      UNION SELECT a.id FROM activities a JOIN devices dev ON dev.app_id = a.app_id AND dev.end_user_id = a.end_user_id WHERE dev.id IN (${devices})`;
  return {
    // INDEXED BY: without statistics the planner would read `activity_id IS NULL` through
    // deliveries_activity, every notification of the outbox.
    sql: `d.id IN (SELECT id FROM deliveries INDEXED BY deliveries_notification_token WHERE activity_id IS NULL AND token_id IN (${tokens})
                   UNION ALL SELECT id FROM deliveries WHERE activity_id IN (${activities}) AND token_id IN (${tokens})
                   UNION ALL SELECT id FROM deliveries WHERE token_id IS NULL AND device_id IN (${devices}))`,
    params: [...params, ...params, ...params, ...params, ...params],
  };
}

/**
 * The WHERE clause of a filter. Each narrowing filter goes through an index: end user and device
 * through their tokens and activities (toDevices), template through messages_app_template then
 * deliveries_message, activity through deliveries_activity. Kind, reason and time range then only
 * narrow the rows those (or deliveries_app) yield.
 */
function where(appId: string, f: DeliveryFilter): { sql: string; params: (string | number)[] } {
  const clauses = ['d.app_id = ?'];
  const params: (string | number)[] = [appId];
  const add = (clause: string, ...values: (string | number)[]) => (clauses.push(clause), params.push(...values));
  if (f.status) add('d.status = ?', f.status);
  if (f.kind) add('m.kind = ?', f.kind);
  const byDevices = (devices: ReturnType<typeof toDevices>) => add(devices.sql, ...devices.params);
  if (f.endUserId) byDevices(toDevices('SELECT id FROM devices WHERE app_id = ? AND end_user_id = ?', [appId, f.endUserId]));
  if (f.deviceId) byDevices(toDevices('?', [f.deviceId]));
  if (f.activityId) add('d.activity_id = ?', f.activityId);
  // Written as a lookup of ids, so the planner walks deliveries_message instead of every delivery of the app.
  if (f.templateSlug) add('d.id IN (SELECT id FROM deliveries WHERE message_id IN (SELECT id FROM messages WHERE app_id = ? AND template_slug = ?))', appId, f.templateSlug);
  // instr on lower-case text: a substring match without LIKE's wildcards (% and _ in a reason are literal).
  if (f.reason) add('instr(lower(d.reason), lower(?)) > 0', f.reason);
  if (f.since !== undefined) add('d.created_at >= ?', f.since);
  if (f.until !== undefined) add('d.created_at < ?', f.until);
  return { sql: clauses.join(' AND '), params };
}

/** The console's and admin API's view of the outbox: search, one delivery, its attempts and token. */
function deliveryHistoryStatements(db: Db) {
  const client = db.$client;
  const one = client.query<DeliveryRow, [string, number]>(`SELECT ${COLUMNS} WHERE d.app_id = ? AND d.id = ?`);
  const attempts = client.query<AttemptRow, [number]>(
    `SELECT attempt, at, provider, provider_id AS providerId, reason FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt`,
  );
  const ledger = client.query<LedgerRow, [number]>(
    `SELECT id, kind, state, environment, invalid_reason AS invalidReason, invalidated_at AS invalidatedAt, reported_at AS reportedAt,
            created_at AS createdAt, activity_id AS activityId FROM tokens WHERE id = ?`,
  );
  const content = client.query<{ content: string }, [number]>(
    `SELECT m.content FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.id = ?`,
  );
  const first = client.query<{ id: number }, [string]>(`SELECT min(id) AS id FROM deliveries WHERE app_id = ?`);
  return {
    /** Newest first; `total` counts every match, not the page. Statements are cached per filter shape by bun:sqlite. */
    search(appId: string, filter: DeliveryFilter, limit: number, offset: number): { rows: DeliveryRow[]; total: number } {
      const w = where(appId, filter);
      const rows = client.query<DeliveryRow, (string | number)[]>(`SELECT ${COLUMNS} WHERE ${w.sql} ORDER BY d.id DESC LIMIT ? OFFSET ?`).all(...w.params, limit, offset);
      const needsMessage = filter.kind !== undefined;
      const total = client
        .query<{ n: number }, (string | number)[]>(
          `SELECT count(*) AS n FROM deliveries d ${needsMessage ? 'JOIN messages m ON m.id = d.message_id' : ''} WHERE ${w.sql}`,
        )
        .get(...w.params)!.n;
      return { rows, total };
    },
    get: (appId: string, id: number) => one.get(appId, id),
    attempts: (id: number) => attempts.all(id),
    ledgerEntry: (tokenId: number) => ledger.get(tokenId),
    /** The provider-neutral content queued (what the request was rendered from). */
    content: (id: number) => content.get(id)?.content,
    /** The app's oldest delivery id, if it has any (ids count across apps). */
    firstId: (appId: string): number | undefined => first.get(appId)?.id ?? undefined,
  };
}

/** The repository over deliveryHistoryStatements: every method returns a Promise. */
export const deliveryHistoryRepository = (db: Db): DeliveryHistoryRepository => promised(deliveryHistoryStatements(db));
