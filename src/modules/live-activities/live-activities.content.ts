import type { ActivityAlert, CustomContent, LiveActivityContent, LiveActivityEvent } from '../delivery/message-content';
import { dateFields, type CustomTemplateDefinition } from './custom-templates';
import type { TemplateDefinition } from './templates';
import { webActivityText } from './web-activity-text';
import type { RequestedPriority } from './priority-budget/priority-decision';

/** Alerts are a glance, not a copy of the activity: longer text is cut. */
const ALERT_TITLE_MAX = 64;
const ALERT_BODY_MAX = 160;

/** The data of an activity that its pushes carry. */
export interface ActivityData {
  id: string;
  templateSlug: string;
  /** Strings for a built-in template; typed JSON values for an app-defined one. */
  attributes: Record<string, unknown>;
  contentState: Record<string, unknown>;
}

/** The caller's options of one event (routes validate them; dates in ms). */
export interface EventOptions {
  alert?: ActivityAlert;
  /** Absent: `auto`. */
  priority?: RequestedPriority;
  staleDate?: number;
  relevanceScore?: number;
  /** End only. */
  dismissalAt?: number;
}

/**
 * The provider-neutral content of one event of an activity. A start always carries an alert (the
 * caller's, else the template's); an update only the caller's; an end none. Each carries what a web
 * device shows (`web`: webActivityText). `apnsTimestamp` is
 * the activity's next strictly increasing APNs timestamp (live-activities.repository).
 * @example activityContent('end', activity, { now, apnsTimestamp, options: { dismissalAt: now } })
 */
export function activityContent(
  event: LiveActivityEvent,
  activity: ActivityData,
  context: { now: number; apnsTimestamp?: number; template?: TemplateDefinition; custom?: CustomContent; options?: EventOptions },
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
    web: webActivityText(activity),
  };
  if (context.custom) content.custom = context.custom;
  if (context.apnsTimestamp !== undefined) content.apnsTimestamp = context.apnsTimestamp;
  // `auto` (also when absent) is decided per device where the push is queued (priority-budget/auto-priority.ts).
  if (options.priority === 5 || options.priority === 10) content.priority = options.priority;
  else content.autoPriority = true;
  if (event !== 'end') {
    const alert = options.alert ?? (event === 'start' ? startAlert(activity, context) : undefined);
    if (alert) content.alert = alert;
    if (options.staleDate !== undefined) content.staleDate = options.staleDate;
    if (options.relevanceScore !== undefined) content.relevanceScore = options.relevanceScore;
  }
  if (event === 'end' && options.dismissalAt !== undefined) content.dismissalAt = options.dismissalAt;
  return content;
}

/** A start's own alert: a built-in template's from its main text; an app-defined template's names it. */
function startAlert(activity: ActivityData, context: { template?: TemplateDefinition; custom?: CustomContent }): ActivityAlert | undefined {
  if (context.template) return alertFor(context.template, activity.attributes as Record<string, string>, activity.contentState as Record<string, string>);
  if (context.custom) return { title: cut(activity.templateSlug, ALERT_TITLE_MAX), body: 'Live Activity started' };
  return undefined;
}

/** What the payloads of an app-defined template's events need: its attributes type and date fields. */
export function customContent(def: CustomTemplateDefinition): CustomContent {
  const attributes = dateFields(def.attributes);
  const contentState = dateFields(def.contentState);
  const dates = { ...(attributes.length ? { attributes } : {}), ...(contentState.length ? { contentState } : {}) };
  return { attributesType: def.attributesType, ...(Object.keys(dates).length ? { dates } : {}) };
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
