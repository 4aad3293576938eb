import type { ActivityStreamsRepository, StreamRow } from '../../../modules/activity-streams/activity-streams.repository';
import { one, run, type PgScope } from '../query';

const COLUMNS = `app_id AS "appId", key, template_slug AS "templateSlug", attributes, target_users AS "targetUsers", content_state AS "contentState",
  activity_ids AS "activityIds", started_at AS "startedAt", updated_at AS "updatedAt"`;
const NUMBERS = ['startedAt', 'updatedAt'];

/** `activity_streams` on PostgreSQL. */
export function activityStreamsPg({ q }: PgScope): ActivityStreamsRepository {
  return {
    find: (appId, key) => one<StreamRow>(q, `SELECT ${COLUMNS} FROM activity_streams WHERE app_id = $1 AND key = $2`, [appId, key], NUMBERS),
    async save(row) {
      await run(
        q,
        `INSERT INTO activity_streams (app_id, key, template_slug, attributes, target_users, content_state, activity_ids, started_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (app_id, key) DO UPDATE SET template_slug = $3, attributes = $4, target_users = $5, content_state = $6, activity_ids = $7,
           started_at = $8, updated_at = $9`,
        [row.appId, row.key, row.templateSlug, row.attributes, row.targetUsers, row.contentState, row.activityIds, row.startedAt, row.updatedAt],
      );
    },
    async remove(appId, key) {
      await run(q, 'DELETE FROM activity_streams WHERE app_id = $1 AND key = $2', [appId, key]);
    },
  };
}
