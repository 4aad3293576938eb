/**
 * An `activities` row as modules/live-activities/live-activities.repository.ts's ActivityRow: the
 * columns and the shape of what they read back. Shared by the repositories that answer activity rows.
 */
export const ACTIVITY_COLUMNS = `id, app_id AS "appId", end_user_id AS "endUserId", template_slug AS "templateSlug", platform, state, attributes,
  content_state AS "contentState", last_timestamp AS "lastTimestamp", started_at AS "startedAt", ended_at AS "endedAt", end_reason AS "endReason"`;
export const ACTIVITY_SHAPE = { numbers: ['lastTimestamp', 'startedAt', 'endedAt'] };
