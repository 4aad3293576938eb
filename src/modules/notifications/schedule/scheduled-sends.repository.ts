import type { ScheduledSendRow } from './scheduled-sends.types';
import type { Sql } from '../../../db/sql/sql';
import { oneOff, statement, valuesList } from '../../../db/sql/statement';
import { repository } from '../../../db/sql/repository';

const COLUMNS = `id, public_id AS "publicId", app_id AS "appId", due_at AS "dueAt", zones, status, send, devices, created_at AS "createdAt"`;
const SHAPE = { numbers: ['id', 'dueAt', 'devices', 'createdAt'] };

// Through scheduled_sends_due (status, due_at): only due rows are read, however many wait.
const claimDue = statement<ScheduledSendRow>(
  (d) => `SELECT ${COLUMNS} FROM scheduled_sends WHERE status = 'waiting' AND due_at <= $1 ORDER BY due_at LIMIT 1${d.skipLocked}`,
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

/** The parts of scheduled sends (`scheduled_sends`). */
/** The parts of scheduled sends. */
export const scheduledSendsRepository = repository((sql: Sql) => {
  return {
    /** Writes the waiting parts of one send. */
    async insert(parts: Omit<ScheduledSendRow, 'id' | 'status' | 'devices'>[]): Promise<void> {
      if (parts.length === 0) return;
      const values = parts.flatMap((p) => [p.publicId, p.appId, p.dueAt, p.zones, 'waiting', p.send, p.createdAt]);
      // A send has at most one part per distinct UTC offset (a few dozen): one multi-row insert.
      await sql.run(oneOff(`INSERT INTO scheduled_sends (public_id, app_id, due_at, zones, status, send, created_at) VALUES ${valuesList(parts.length, 7)}`), values);
    },
    /**
     * The earliest waiting part due at `now` or before, read through the due index. Inside a
     * transaction: on PostgreSQL the row is locked until it commits and skipped by other instances
     * (SKIP LOCKED), so claiming it and queueing its deliveries in one transaction sends it once.
     */
    claimDue: (now: number): Promise<ScheduledSendRow | undefined> => sql.one(claimDue, [now]),
    /** Whether a waiting part is due at `now`: a read through the due index, before a transaction is opened for it. */
    anyDue: async (now: number): Promise<boolean> => (await sql.one(anyDue, [now])) !== undefined,
    /** Marks a waiting part done (sent, cancelled or expired); false when it was no longer waiting. */
    finish: async (id: number, status: Exclude<ScheduledSendRow['status'], 'waiting'>, devices: number): Promise<boolean> => (await sql.run(finish, [id, status, devices])) > 0,
    /** Deletes the parts no longer waiting that were due before `before` (retention); answers how many. */
    prune: (before: number): Promise<number> => sql.run(prune, [before]),
    /** Every part of the app's send with this public id, by due time. */
    ofMessage: (appId: string, publicId: string): Promise<ScheduledSendRow[]> => sql.all(ofMessage, [publicId, appId]),
    /** The distinct zones the app's devices reported: a `sendAtLocal` plans a part for each beside the zones the runtime lists. */
    deviceZones: async (appId: string): Promise<string[]> => (await sql.all(deviceZones, [appId])).map((r) => r.zone),
    /** The app's waiting parts, by due time (the console's list). */
    waiting: (appId: string, limit: number): Promise<ScheduledSendRow[]> => sql.all(waiting, [appId, limit]),
    /** The app's scheduled sends, one per message: when it was made, and whether a part has a message row (a part went). */
    messages: (appId: string): Promise<{ publicId: string; createdAt: number; went: boolean }[]> => sql.all(messages, [appId]),
  };
});

export type ScheduledSendsRepository = ReturnType<typeof scheduledSendsRepository>;
