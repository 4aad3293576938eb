import type { ActivityAlert, LiveActivityContent, LiveActivityEvent } from '../delivery/message-content';
import type { TemplateDefinition } from './templates';

/** Alerts are a glance, not a copy of the activity: longer text is cut. */
const ALERT_TITLE_MAX = 64;
const ALERT_BODY_MAX = 160;

/** The data of an activity that its pushes carry. */
export interface ActivityData {
  id: string;
  templateSlug: string;
  attributes: Record<string, string>;
  contentState: Record<string, string>;
}

/** The caller's options of one event (routes validate them; dates in ms). */
export interface EventOptions {
  alert?: ActivityAlert;
  priority?: 5 | 10;
  staleDate?: number;
  relevanceScore?: number;
  /** End only. */
  dismissalAt?: number;
}

/**
 * The provider-neutral content of one event of an activity. A start always carries an alert (the
 * caller's, else the template's); an update only the caller's; an end none. `apnsTimestamp` is
 * the activity's next strictly increasing APNs timestamp (live-activities.repository).
 * @example activityContent('end', activity, { now, apnsTimestamp, options: { dismissalAt: now } })
 */
export function activityContent(
  event: LiveActivityEvent,
  activity: ActivityData,
  context: { now: number; apnsTimestamp?: number; template?: TemplateDefinition; options?: EventOptions },
): LiveActivityContent {
  const options = context.options ?? {};
  const content: LiveActivityContent = {
    type: 'live_activity',
    event,
    activityId: activity.id,
    templateSlug: activity.templateSlug,
    attributes: activity.attributes,
    contentState: activity.contentState,
    timestamp: context.now,
  };
  if (context.apnsTimestamp !== undefined) content.apnsTimestamp = context.apnsTimestamp;
  if (options.priority !== undefined) content.priority = options.priority;
  if (event !== 'end') {
    const alert = options.alert ?? (event === 'start' && context.template ? alertFor(context.template, activity.attributes, activity.contentState) : undefined);
    if (alert) content.alert = alert;
    if (options.staleDate !== undefined) content.staleDate = options.staleDate;
    if (options.relevanceScore !== undefined) content.relevanceScore = options.relevanceScore;
  }
  if (event === 'end' && options.dismissalAt !== undefined) content.dismissalAt = options.dismissalAt;
  return content;
}

/**
 * The alert of a push-to-start, from the template's main text: the first title and body pattern
 * whose placeholders all have a value, else the template's title.
 * @example alertFor(findTemplate('progress-bar')!, { label: 'Upload' }, { progress: '42' }) // { title: 'Upload', body: '42%' }
 */
export function alertFor(template: TemplateDefinition, attributes: Record<string, string>, contentState: Record<string, string>) {
  const values = { attributes, contentState };
  const first = (patterns: readonly string[]) => patterns.map((p) => fill(p, values)).find((s) => s !== undefined);
  return {
    title: cut(first(template.alert.title) ?? template.title, ALERT_TITLE_MAX),
    body: cut(first(template.alert.body) ?? template.title, ALERT_BODY_MAX),
  };
}

/** The pattern with its `{part.field}` placeholders filled, or undefined when one has no value. */
function fill(pattern: string, values: Record<'attributes' | 'contentState', Record<string, string>>): string | undefined {
  let missing = false;
  const filled = pattern.replace(/\{(attributes|contentState)\.([A-Za-z]+)\}/g, (_, part: 'attributes' | 'contentState', name: string) => {
    const value = values[part][name]?.trim();
    if (!value) missing = true;
    return value ?? '';
  });
  return missing ? undefined : filled;
}

const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
