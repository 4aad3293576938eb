import type { FrequencyCap } from '../../../lib/delivery-limits';
import type { Sql } from '../../../db/sql/sql';
import { oneOff, statement, valuesList } from '../../../db/sql/statement';
import { repository } from '../../../db/sql/repository';

// The end users' windows, locked on PostgreSQL until the send commits (SQLite's write transaction
// holds the whole database). Read in key order, as the send's devices come (by end user), so two
// sends to the same people lock them in the same order and never deadlock.
const windows = statement<{ endUserId: string; sentAt: string }>(
  (d) => `SELECT end_user_id AS "endUserId", sent_at AS "sentAt" FROM frequency_cap_windows
           WHERE app_id = $1 AND ${d.inList('end_user_id', '$2')} ORDER BY end_user_id${d.forUpdate}`,
);
const ensure = (rows: number) =>
  oneOff(`INSERT INTO frequency_cap_windows (app_id, end_user_id, sent_at) VALUES ${valuesList(rows, 1, 1, (p) => `($1, ${p[0]}, '[]')`)} ON CONFLICT (app_id, end_user_id) DO NOTHING`);
const write = (rows: number) =>
  oneOff(
    `INSERT INTO frequency_cap_windows (app_id, end_user_id, sent_at) VALUES ${valuesList(rows, 2, 1, (p) => `($1, ${p.join(', ')})`)}
     ON CONFLICT (app_id, end_user_id) DO UPDATE SET sent_at = excluded.sent_at`,
  );

/** Frequency caps' per end user windows (frequency-caps.tables.ts). */
export const frequencyCapsRepository = repository((sql: Sql) => ({
  /**
   * Counts one notification at `now` for each of `users` (distinct, in the order the send reaches
   * them) whose cap it does not exceed, in the caller's transaction; answers those it would exceed
   * (not counted). Three statements per call, whatever the number of users.
   */
  async count(appId: string, users: readonly { endUserId: string; cap: FrequencyCap }[], now: number): Promise<Set<string>> {
    const refused = new Set<string>();
    if (users.length === 0) return refused;
    const ids = users.map((u) => u.endUserId);
    // Rows first, so that two sends reaching someone new both lock the same row.
    await sql.run(ensure(ids.length), [appId, ...ids]);
    const stored = new Map((await sql.all(windows, [appId, ids])).map((r) => [r.endUserId, JSON.parse(r.sentAt) as number[]]));
    const updated: string[] = [];
    for (const { endUserId, cap } of users) {
      const since = now - cap.perHours * 3_600_000;
      const kept = (stored.get(endUserId) ?? []).filter((at) => at > since);
      if (kept.length >= cap.count) {
        refused.add(endUserId);
        continue;
      }
      kept.push(now);
      updated.push(endUserId, JSON.stringify(kept.slice(-cap.count)));
    }
    if (updated.length > 0) await sql.run(write(updated.length / 2), [appId, ...updated]);
    return refused;
  },
}));
