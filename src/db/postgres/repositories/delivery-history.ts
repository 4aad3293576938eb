import type {
  AttemptRow,
  DeliveryFilter,
  DeliveryHistoryRepository,
  DeliveryRow,
  LedgerRow,
} from '../../../modules/delivery/admin/delivery-history.repository';
import { all, one, type PgScope } from '../query';

const COLUMNS = `d.id, m.kind, d.activity_id AS "activityId", d.device_id AS "deviceId", dev.end_user_id AS "endUserId",
  COALESCE(m.template_slug, m.content::json->>'templateSlug') AS "templateSlug", d.token_id AS "tokenId", dev.platform, d.provider,
  d.status, d.attempts, d.provider_id AS "providerId", d.reason, d.sent_payload AS "sentPayload", m.sent_body AS "messageBody", d.created_at AS "createdAt",
  d.updated_at AS "updatedAt", d.next_attempt_at AS "nextAttemptAt"
  FROM deliveries d JOIN messages m ON m.id = d.message_id LEFT JOIN devices dev ON dev.id = d.device_id`;
const NUMBERS = ['id', 'tokenId', 'createdAt', 'updatedAt', 'nextAttemptAt'];

/** The WHERE clause of a filter (the same narrowing as the SQLite one; a parameter may be used several times here). */
function where(appId: string, f: DeliveryFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (value: unknown) => `$${params.push(value)}`;
  const clauses = [`d.app_id = ${p(appId)}`];
  const toDevices = (devices: string) => {
    const tokens = `SELECT id FROM tokens WHERE device_id IN (${devices})`;
    const activities = `SELECT activity_id FROM activity_instances WHERE device_id IN (${devices})
                        UNION SELECT a.id FROM activities a JOIN devices dev ON dev.app_id = a.app_id AND dev.end_user_id = a.end_user_id WHERE dev.id IN (${devices})`;
    clauses.push(`d.id IN (SELECT id FROM deliveries WHERE activity_id IS NULL AND token_id IN (${tokens})
                   UNION ALL SELECT id FROM deliveries WHERE activity_id IN (${activities}) AND token_id IN (${tokens})
                   UNION ALL SELECT id FROM deliveries WHERE token_id IS NULL AND device_id IN (${devices}))`);
  };
  if (f.status) clauses.push(`d.status = ${p(f.status)}`);
  if (f.kind) clauses.push(`m.kind = ${p(f.kind)}`);
  if (f.endUserId) toDevices(`SELECT id FROM devices WHERE app_id = $1 AND end_user_id = ${p(f.endUserId)}`);
  if (f.deviceId) toDevices(p(f.deviceId));
  if (f.activityId) clauses.push(`d.activity_id = ${p(f.activityId)}`);
  if (f.templateSlug) clauses.push(`d.message_id IN (SELECT id FROM messages WHERE app_id = $1 AND template_slug = ${p(f.templateSlug)})`);
  // strpos on lower-case text: a substring match without LIKE's wildcards (% and _ in a reason are literal).
  if (f.reason) clauses.push(`strpos(lower(d.reason), lower(${p(f.reason)})) > 0`);
  if (f.since !== undefined) clauses.push(`d.created_at >= ${p(f.since)}`);
  if (f.until !== undefined) clauses.push(`d.created_at < ${p(f.until)}`);
  return { sql: clauses.join(' AND '), params };
}

/** The console's and admin API's view of the outbox on PostgreSQL. */
export function deliveryHistoryPg({ q }: PgScope): DeliveryHistoryRepository {
  return {
    async search(appId, filter, limit, offset) {
      const w = where(appId, filter);
      const n = w.params.length;
      const rows = await all<DeliveryRow>(q, `SELECT ${COLUMNS} WHERE ${w.sql} ORDER BY d.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, [...w.params, limit, offset], NUMBERS);
      const join = filter.kind !== undefined ? 'JOIN messages m ON m.id = d.message_id' : '';
      const total = (await one<{ n: number }>(q, `SELECT count(*)::int AS n FROM deliveries d ${join} WHERE ${w.sql}`, w.params))!.n;
      return { rows, total };
    },
    get: (appId, id) => one<DeliveryRow>(q, `SELECT ${COLUMNS} WHERE d.app_id = $1 AND d.id = $2`, [appId, id], NUMBERS) as Promise<DeliveryRow | null>,
    attempts: (id) =>
      all<AttemptRow>(q, `SELECT attempt, at, provider, provider_id AS "providerId", reason FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt`, [id], ['at']),
    ledgerEntry: (tokenId) =>
      one<LedgerRow>(
        q,
        `SELECT id, kind, state, environment, invalid_reason AS "invalidReason", invalidated_at AS "invalidatedAt", reported_at AS "reportedAt",
                created_at AS "createdAt", activity_id AS "activityId" FROM tokens WHERE id = $1`,
        [tokenId],
        ['id', 'invalidatedAt', 'reportedAt', 'createdAt'],
      ) as Promise<LedgerRow | null>,
    content: async (id) => (await one<{ content: string }>(q, 'SELECT m.content FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.id = $1', [id]))?.content,
    firstId: async (appId) => (await one<{ id: number | null }>(q, 'SELECT min(id) AS id FROM deliveries WHERE app_id = $1', [appId], ['id']))?.id ?? undefined,
  };
}
