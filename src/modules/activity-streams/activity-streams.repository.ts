import type { StreamRow } from './activity-streams.types';
import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';

const COLUMNS = `app_id AS "appId", key, template_slug AS "templateSlug", attributes, target_users AS "targetUsers", content_state AS "contentState",
  activity_ids AS "activityIds", started_at AS "startedAt", updated_at AS "updatedAt"`;

const find = statement<StreamRow>(`SELECT ${COLUMNS} FROM activity_streams WHERE app_id = $1 AND key = $2`, { numbers: ['startedAt', 'updatedAt'] });
const save = statement(
  `INSERT INTO activity_streams (app_id, key, template_slug, attributes, target_users, content_state, activity_ids, started_at, updated_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
   ON CONFLICT (app_id, key) DO UPDATE SET template_slug = $3, attributes = $4, target_users = $5, content_state = $6, activity_ids = $7,
     started_at = $8, updated_at = $9`,
);
const remove = statement('DELETE FROM activity_streams WHERE app_id = $1 AND key = $2');

/** `activity_streams`: one row per app and stream key. */
export const activityStreamsRepository = repository((sql: Sql) => {
  return {
    find: (appId: string, key: string): Promise<StreamRow | undefined> => sql.one(find, [appId, key]),
    async save(row: StreamRow): Promise<void> {
      await sql.run(save, [row.appId, row.key, row.templateSlug, row.attributes, row.targetUsers, row.contentState, row.activityIds, row.startedAt, row.updatedAt]);
    },
    async remove(appId: string, key: string): Promise<void> {
      await sql.run(remove, [appId, key]);
    },
  };
});

export type ActivityStreamsRepository = ReturnType<typeof activityStreamsRepository>;
