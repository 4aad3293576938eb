import type { Sql } from '../../../db/sql/sql';
import { statement } from '../../../db/sql/statement';
import { repository } from '../../../db/sql/repository';

// Through end_users_own_limits (users.tables.ts): only end users with limits of their own are read.
const anyOwn = statement<{ one: number }>('SELECT 1 AS one FROM end_users WHERE app_id = $1 AND (quiet_hours IS NOT NULL OR frequency_cap IS NOT NULL) LIMIT 1');
const of = statement<{ id: string; quietHours: string | null; frequencyCap: string | null }>(
  (d) => `SELECT id, quiet_hours AS "quietHours", frequency_cap AS "frequencyCap" FROM end_users
           WHERE app_id = $1 AND ${d.inList('id', '$2')} AND (quiet_hours IS NOT NULL OR frequency_cap IS NOT NULL)`,
);

/** The quiet hours and frequency caps end users have of their own (set through the users API), as a send reads them. */
export const endUserLimitsRepository = repository((sql: Sql) => ({
  /** Whether any end user of the app has limits of their own. */
  anyOwn: async (appId: string): Promise<boolean> => (await sql.one(anyOwn, [appId])) !== undefined,
  /** The own limits (JSON) of those of `endUserIds` who have any. */
  of: async (appId: string, endUserIds: readonly string[]) => new Map((await sql.all(of, [appId, endUserIds])).map((r) => [r.id, r])),
}));
