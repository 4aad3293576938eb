import { t } from 'elysia';
import { HttpError } from '../../lib/errors';
import { parseDate } from '../../http/dates';
import type { EventOptions } from './live-activities.content';
import type { RequestedPriority } from './priority-budget/priority-decision';

/**
 * The options of start, update and end: top-level body fields next to `contentState`, all
 * optional. Their schemas (for validation and OpenAPI) and their conversion to EventOptions.
 */

const DateField = (what: string) =>
  t.Union([t.String({ minLength: 1 }), t.Number()], {
    description: `${what} ISO 8601 (\`2026-11-23T12:00:00Z\`) or Unix seconds. Sent to APNs in seconds and to Android in milliseconds.`,
    examples: ['2026-11-23T12:00:00Z', 1795435200],
  });

export const AlertField = t.Object(
  {
    title: t.String({ minLength: 1, maxLength: 256, description: 'Alert title.' }),
    body: t.String({ minLength: 1, maxLength: 1024, description: 'Alert body.' }),
    sound: t.Optional(t.String({ minLength: 1, maxLength: 256, description: 'A sound file in the app bundle, or `default`.' })),
  },
  {
    additionalProperties: false,
    description:
      'Lights the screen and shows this alert with the event (iOS: `aps.alert`; Android: the app re-alerts on `alertTitle`/`alertBody`). ' +
      'On start, absent means the template alert.',
  },
);

export const PriorityField = t.Union([t.Literal('auto'), t.Literal(5), t.Literal(10)], {
  description:
    '`auto` (default): a start, an end and an update with an `alert` go at 10; any other update goes at 10 while the activity’s budget on that device ' +
    'allows (the app’s `liveActivityBudget`, priority-10 updates per sliding hour) and at 5 after it. ' +
    '10: delivered at once, but spends the device’s Live Activity budget (iOS delays or drops updates past it while APNs answers 200). ' +
    '5: delivered when convenient, without spending it. Android: 10 = high, 5 = normal (`auto`: high).',
});

/** Start and update. */
export const ContentOptions = {
  alert: t.Optional(AlertField),
  priority: t.Optional(PriorityField),
  staleDate: t.Optional(DateField('When the content becomes out of date (iOS shows it as stale; Android gets `staleDate`, and an update is not delivered after it).')),
  relevanceScore: t.Optional(t.Number({ description: 'Which of the app’s activities iOS shows first (higher is more relevant).' })),
};

/** End. */
export const EndOptions = {
  priority: t.Optional(PriorityField),
  dismissalDate: t.Optional(
    DateField('Keeps the final state on the device until then; a past date removes it at once. Absent: removed at once (the end’s own time).'),
  ),
};

/** The option fields of a start or update body, as validated by ContentOptions. */
export interface ContentOptionsInput {
  alert?: EventOptions['alert'];
  priority?: RequestedPriority;
  staleDate?: string | number;
  relevanceScore?: number;
}

/** The options of a validated start or update body. */
export function contentOptions(body: ContentOptionsInput): EventOptions {
  const options: EventOptions = {};
  if (body.alert) options.alert = body.alert;
  if (body.priority !== undefined) options.priority = body.priority;
  if (body.staleDate !== undefined) options.staleDate = parseDate(body.staleDate, 'staleDate');
  if (body.relevanceScore !== undefined) {
    if (!Number.isFinite(body.relevanceScore)) throw new HttpError(400, 'relevanceScore must be a number');
    options.relevanceScore = body.relevanceScore;
  }
  return options;
}
