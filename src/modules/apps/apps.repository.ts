import type { AppRow } from './apps.types';
import { insertRow, updateRow, writableTable } from '../../db/sql/columns';
import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';

const COLUMNS = `id, name, plan, app_secret_hash AS "appSecretHash", app_secret_sealed AS "appSecretSealed", signing_secret_sealed AS "signingSecretSealed",
  apns_sealed AS "apnsSealed", fcm_sealed AS "fcmSealed", apns_paused_reason AS "apnsPausedReason", fcm_paused_reason AS "fcmPausedReason",
  source, default_time_zone AS "defaultTimeZone", la_priority10_per_hour AS "laPriority10PerHour",
  la_frequent_priority10_per_hour AS "laFrequentPriority10PerHour", quiet_hours AS "quietHours", frequency_cap AS "frequencyCap", created_at AS "createdAt", updated_at AS "updatedAt"`;
const SHAPE = { numbers: ['createdAt', 'updatedAt'] };
const apps = writableTable<AppRow>('apps', {
  id: true, name: true, plan: true, appSecretHash: true, appSecretSealed: true, signingSecretSealed: true, apnsSealed: true, fcmSealed: true,
  apnsPausedReason: true, fcmPausedReason: true, source: true, defaultTimeZone: true, laPriority10PerHour: true, laFrequentPriority10PerHour: true,
  quietHours: true, frequencyCap: true, createdAt: true, updatedAt: true,
});

// Authentication reads it once per app and APP_ROW_TTL_MS (modules/apps/app-row-cache.ts), the workers once per claimed batch: one prepared statement.
const byId = statement<AppRow>(`SELECT ${COLUMNS} FROM apps WHERE id = $1`, SHAPE);
const list = statement<AppRow>(`SELECT ${COLUMNS} FROM apps ORDER BY created_at, id`, SHAPE);
const apnsConfigured = statement<{ yes: boolean }>('SELECT apns_sealed IS NOT NULL AS yes FROM apps WHERE id = $1', { booleans: ['yes'] });
const laBudget = statement<Pick<AppRow, 'laPriority10PerHour' | 'laFrequentPriority10PerHour'>>(
  'SELECT la_priority10_per_hour AS "laPriority10PerHour", la_frequent_priority10_per_hour AS "laFrequentPriority10PerHour" FROM apps WHERE id = $1',
);
const remove = statement('DELETE FROM apps WHERE id = $1');

/** The `apps` table. */
export const appsRepository = repository((sql: Sql) => {
  return {
    find: (id: string): Promise<AppRow | undefined> => sql.one(byId, [id]),
    list: (): Promise<AppRow[]> => sql.all(list),
    async insert(row: AppRow): Promise<void> {
      const insert = insertRow(apps, row);
      await sql.run(insert.statement, insert.params);
    },
    async update(id: string, patch: Partial<AppRow>): Promise<void> {
      const update = updateRow(apps, patch, 'id = $1', [id]);
      if (update) await sql.run(update.statement, update.params);
    },
    /** Whether the app delivers to APNs for real (has credentials) rather than to the simulator. */
    hasApnsCredentials: async (id: string): Promise<boolean> => (await sql.one(apnsConfigured, [id]))?.yes === true,
    /** The app's Live Activity budget settings (null: the default), read where an update is queued. */
    liveActivityBudget: (id: string): Promise<Pick<AppRow, 'laPriority10PerHour' | 'laFrequentPriority10PerHour'> | undefined> => sql.one(laBudget, [id]),
    remove: async (id: string): Promise<boolean> => (await sql.run(remove, [id])) > 0,
  };
});

export type AppsRepository = ReturnType<typeof appsRepository>;
