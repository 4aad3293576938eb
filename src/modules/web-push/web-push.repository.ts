import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';
import type { webPush } from './web-push.tables';

export type WebPushRow = typeof webPush.$inferSelect;

const COLUMNS = `app_id AS "appId", public_key AS "publicKey", private_key_sealed AS "privateKeySealed", subject, default_url AS "defaultUrl",
  expiry_days AS "expiryDays", source, created_at AS "createdAt", updated_at AS "updatedAt"`;
const byApp = statement<WebPushRow>(`SELECT ${COLUMNS} FROM web_push WHERE app_id = $1`, { numbers: ['expiryDays', 'createdAt', 'updatedAt'] });
const put = statement(
  `INSERT INTO web_push (app_id, public_key, private_key_sealed, subject, default_url, expiry_days, source, created_at, updated_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
   ON CONFLICT (app_id) DO UPDATE SET public_key = $2, private_key_sealed = $3, subject = $4, default_url = $5, expiry_days = $6, source = $7, updated_at = $9`,
);
const remove = statement('DELETE FROM web_push WHERE app_id = $1');

/** The `web_push` table: one app's VAPID identity. */
export const webPushRepository = repository((sql: Sql) => ({
  find: (appId: string): Promise<WebPushRow | undefined> => sql.one(byApp, [appId]),
  /** Creates or replaces the app's row (createdAt kept on a replace). */
  async put(row: WebPushRow): Promise<void> {
    await sql.run(put, [row.appId, row.publicKey, row.privateKeySealed, row.subject, row.defaultUrl, row.expiryDays, row.source, row.createdAt, row.updatedAt]);
  },
  remove: async (appId: string): Promise<boolean> => (await sql.run(remove, [appId])) > 0,
}));
