import type { AppRow, AppsRepository } from '../../../modules/apps/apps.repository';
import { apps } from '../schema';
import { all, one, run, type PgScope } from '../query';
import { setClause } from './columns';

const COLUMNS = `id, name, plan, app_secret_hash AS "appSecretHash", app_secret_sealed AS "appSecretSealed", signing_secret_sealed AS "signingSecretSealed",
  apns_sealed AS "apnsSealed", fcm_sealed AS "fcmSealed", apns_paused_reason AS "apnsPausedReason", fcm_paused_reason AS "fcmPausedReason",
  source, created_at AS "createdAt", updated_at AS "updatedAt"`;
const NUMBERS = ['createdAt', 'updatedAt'];

/** `apps` on PostgreSQL. */
export function appsPg({ q }: PgScope): AppsRepository {
  return {
    find: (id) => one<AppRow>(q, `SELECT ${COLUMNS} FROM apps WHERE id = $1`, [id], NUMBERS),
    list: () => all<AppRow>(q, `SELECT ${COLUMNS} FROM apps ORDER BY created_at, id`, [], NUMBERS),
    async insert(row) {
      const set = setClause(apps, row);
      await run(q, `INSERT INTO apps (${set.columns.join(', ')}) VALUES (${set.columns.map((_, i) => `$${i + 1}`).join(', ')})`, set.values);
      return undefined as never;
    },
    async update(id, patch) {
      const set = setClause(apps, patch);
      if (set.columns.length === 0) return undefined as never;
      await run(q, `UPDATE apps SET ${set.columns.map((c, i) => `${c} = $${i + 1}`).join(', ')} WHERE id = $${set.columns.length + 1}`, [...set.values, id]);
      return undefined as never;
    },
    hasApnsCredentials: async (id) => (await one<{ yes: boolean }>(q, 'SELECT apns_sealed IS NOT NULL AS yes FROM apps WHERE id = $1', [id]))?.yes === true,
    remove: async (id) => (await run(q, 'DELETE FROM apps WHERE id = $1', [id])) > 0,
  };
}
