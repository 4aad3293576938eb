import type { Db } from '../database';
import { promised } from '../promised';
import type { StreamRow, ActivityStreamsRepository } from '../../../modules/activity-streams/activity-streams.repository';

const COLUMNS = `app_id AS appId, key, template_slug AS templateSlug, attributes, target_users AS targetUsers, content_state AS contentState,
  activity_ids AS activityIds, started_at AS startedAt, updated_at AS updatedAt`;

/** The statements on `activity_streams`. */
function activityStreamsStatements(db: Db) {
  const client = db.$client;
  const find = client.query<StreamRow, [string, string]>(`SELECT ${COLUMNS} FROM activity_streams WHERE app_id = ? AND key = ?`);
  const save = client.query(
    `INSERT INTO activity_streams (app_id, key, template_slug, attributes, target_users, content_state, activity_ids, started_at, updated_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
     ON CONFLICT (app_id, key) DO UPDATE SET template_slug = ?3, attributes = ?4, target_users = ?5, content_state = ?6, activity_ids = ?7,
       started_at = ?8, updated_at = ?9`,
  );
  const remove = client.query(`DELETE FROM activity_streams WHERE app_id = ? AND key = ?`);
  return {
    find: (appId: string, key: string): StreamRow | undefined => find.get(appId, key) ?? undefined,
    save(row: StreamRow): void {
      save.run(row.appId, row.key, row.templateSlug, row.attributes, row.targetUsers, row.contentState, row.activityIds, row.startedAt, row.updatedAt);
    },
    remove(appId: string, key: string): void {
      remove.run(appId, key);
    },
  };
}

/** The repository over activityStreamsStatements: every method returns a Promise. */
export const activityStreamsRepository = (db: Db): ActivityStreamsRepository => promised(activityStreamsStatements(db));
