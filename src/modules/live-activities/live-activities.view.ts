import { t } from 'elysia';
import { shownId } from '../../lib/anonymous';
import { isoTime } from '../../lib/clock';
import type { ActivityRow } from './live-activities.types';
import { TEMPLATE_SLUGS } from './templates';

export const LiveActivityRecord = t.Object(
  {
    id: t.String({ description: 'Identifier of the activity (`la_…`). Needed for update and end.', examples: ['la_mk4x9c2a0f3h8k1m2n4p6q8r'] }),
    appId: t.String({ description: 'The app that owns the activity.' }),
    endUserId: t.Union([t.String(), t.Null()], { description: 'The end user the activity was started for; null once they were erased.' }),
    templateSlug: t.String({ description: `One of the eight template slugs: ${TEMPLATE_SLUGS.join(', ')}.`, examples: ['progress-bar'] }),
    state: t.Union([t.Literal('Scheduled'), t.Literal('Active'), t.Literal('Ended')], {
      description: '`Active` or `Ended`; `Scheduled` while a start with `startAt` or `startAtLocal` waits for its time (nothing sent yet).',
    }),
    platform: t.Union([t.Literal('ios'), t.Literal('android'), t.Literal('web')], { description: "Platform of the end user's most recently registered device." }),
    startedAt: t.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp of the start (while `Scheduled`: when it is due).' }),
    scheduledFor: t.Optional(t.String({ format: 'date-time', description: 'Only while `Scheduled`: when its start goes (the push-to-start on iOS, the start on Android).' })),
    endedAt: t.Optional(t.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp of the end; only when state is `Ended`.' })),
  },
  { description: 'A Live Activity. Attributes and contentState are not returned.' },
);

type ViewFields = Pick<ActivityRow, 'id' | 'appId' | 'endUserId' | 'templateSlug' | 'state' | 'platform' | 'startedAt' | 'endedAt'>;

/** An activity as the API shows it: the spec's fields, endedAt only once Ended, scheduledFor only while Scheduled. */
export function activityView(row: ViewFields) {
  const view = {
    id: row.id,
    appId: row.appId,
    endUserId: shownId(row.endUserId),
    templateSlug: row.templateSlug,
    state: row.state,
    platform: row.platform,
    startedAt: isoTime(row.startedAt),
  };
  if (row.state === 'Scheduled') return { ...view, scheduledFor: view.startedAt };
  return row.state === 'Ended' && row.endedAt !== null ? { ...view, endedAt: isoTime(row.endedAt) } : view;
}
