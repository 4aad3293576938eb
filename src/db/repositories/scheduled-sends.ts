import type { ScheduledSendRow, ScheduledSendsRepository } from '../../modules/notifications/scheduled-sends.repository';
import type { Sql } from '../sql/sql';
import { oneOff, statement, valuesList } from '../sql/statement';

const COLUMNS = `id, public_id AS "publicId", app_id AS "appId", due_at AS "dueAt", zones, status, send, devices, created_at AS "createdAt"`;
const SHAPE = { numbers: ['id', 'dueAt', 'devices', 'createdAt'] };

// Through scheduled_sends_due (status, due_at): only due rows are read, however many wait.
const claimDue = statement<ScheduledSendRow>(
  (d) => `SELECT ${COLUMNS} FROM scheduled_sends WHERE status = 'waiting' AND due_at <= $1 ORDER BY due_at LIMIT 1${d.name === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : ''}`,
  SHAPE,
);
const anyDue = statement<{ id: number }>(`SELECT id FROM scheduled_sends WHERE status = 'waiting' AND due_at <= $1 LIMIT 1`, { numbers: ['id'] });
const finish = statement(`UPDATE scheduled_sends SET status = $2, devices = $3 WHERE id = $1 AND status = 'waiting'`);
const prune = statement(`DELETE FROM scheduled_sends WHERE status IN ('sent', 'cancelled', 'expired', 'failed') AND due_at < $1`);
const ofMessage = statement<ScheduledSendRow>(`SELECT ${COLUMNS} FROM scheduled_sends WHERE public_id = $1 AND app_id = $2 ORDER BY due_at`, SHAPE);
const waiting = statement<ScheduledSendRow>(
  `SELECT ${COLUMNS} FROM scheduled_sends WHERE status = 'waiting' AND app_id = $1 ORDER BY due_at LIMIT $2`,
  SHAPE,
);
const messages = statement<{ publicId: string; createdAt: number; went: boolean }>(
  `SELECT s.public_id AS "publicId", min(s.created_at) AS "createdAt", EXISTS (SELECT 1 FROM notification_messages n WHERE n.public_id = s.public_id) AS "went"
   FROM scheduled_sends s WHERE s.app_id = $1 GROUP BY s.public_id`,
  { numbers: ['createdAt'], booleans: ['went'] },
);
const deviceZones = statement<{ zone: string }>('SELECT DISTINCT time_zone AS zone FROM devices WHERE app_id = $1 AND time_zone IS NOT NULL');

/** The parts of scheduled sends. */
export function scheduledSendsRepository(sql: Sql): ScheduledSendsRepository {
  return {
    async insert(parts) {
      if (parts.length === 0) return;
      const values = parts.flatMap((p) => [p.publicId, p.appId, p.dueAt, p.zones, 'waiting', p.send, p.createdAt]);
      // A send has at most one part per distinct UTC offset (a few dozen): one multi-row insert.
      await sql.run(oneOff(`INSERT INTO scheduled_sends (public_id, app_id, due_at, zones, status, send, created_at) VALUES ${valuesList(parts.length, 7)}`), values);
    },
    claimDue: (now) => sql.one(claimDue, [now]),
    anyDue: async (now) => (await sql.one(anyDue, [now])) !== undefined,
    finish: async (id, status, devices) => (await sql.run(finish, [id, status, devices])) > 0,
    prune: (before) => sql.run(prune, [before]),
    ofMessage: (appId, publicId) => sql.all(ofMessage, [publicId, appId]),
    deviceZones: async (appId) => (await sql.all(deviceZones, [appId])).map((r) => r.zone),
    waiting: (appId, limit) => sql.all(waiting, [appId, limit]),
    messages: (appId) => sql.all(messages, [appId]),
  };
}
