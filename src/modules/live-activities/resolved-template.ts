import type { Sql } from '../../db/sql/sql';
import { HttpError } from '../../lib/errors';
import type { CustomContent } from '../delivery/message-content';
import { customContentStateError, customDataError, type CustomFields, type CustomTemplateDefinition } from './custom-templates';
import { customContent } from './live-activities.content';
import type { TemplateRow } from './live-activity-templates.types';
import { invalidTemplateSlug } from './template-errors';
import { activityDataError, contentStateError } from './template-validation';
import { findTemplate, type TemplateDefinition } from './templates';
import { liveActivityTemplatesRepository } from './live-activity-templates.repository';

/** The template an activity names: one of the eight built-ins, or one the app defined (issue 39). */
export type ResolvedTemplate = { builtIn: TemplateDefinition; custom?: undefined } | { builtIn?: undefined; custom: CustomTemplateDefinition };

/** A stored row as the definition it holds. */
export function definitionOf(row: TemplateRow): CustomTemplateDefinition {
  return {
    slug: row.slug,
    attributesType: row.attributesType,
    attributes: JSON.parse(row.attributes) as CustomFields,
    contentState: JSON.parse(row.contentState) as CustomFields,
  };
}

/**
 * The template with that slug for the app: a built-in first (their slugs are never stored), else
 * the app's own; 400 `invalid template slug` (the spec's text) when there is neither.
 */
export async function resolveTemplate(r: Sql, appId: string, slug: string): Promise<ResolvedTemplate> {
  const builtIn = findTemplate(slug);
  if (builtIn) return { builtIn };
  const row = await liveActivityTemplatesRepository(r).find(appId, slug);
  if (!row) throw invalidTemplateSlug(slug, (await liveActivityTemplatesRepository(r).list(appId)).map((t) => t.slug));
  return { custom: definitionOf(row) };
}

/** The template with that slug, given the app's stored row of that slug if any (read beforehand); undefined when there is neither. */
export function resolvedFrom(slug: string, stored: TemplateRow | undefined): ResolvedTemplate | undefined {
  const builtIn = findTemplate(slug);
  if (builtIn) return { builtIn };
  return stored ? { custom: definitionOf(stored) } : undefined;
}

/** 400 with the first problem of a start's data: the built-ins' string rules, or an app-defined template's types. */
export function requireValidData(template: ResolvedTemplate, attributes: unknown, contentState: unknown): void {
  const problem = template.builtIn ? activityDataError(template.builtIn, attributes, contentState) : customDataError(template.custom, attributes, contentState);
  if (problem) throw new HttpError(400, problem);
}

/** 400 with the first problem of an update's or end's contentState, given the activity's attributes. */
export function requireValidState(template: ResolvedTemplate, contentState: unknown, attributes: Record<string, unknown>): void {
  const problem = template.builtIn
    ? contentStateError(template.builtIn, contentState, attributes as Record<string, string>)
    : customContentStateError(template.custom, contentState);
  if (problem) throw new HttpError(400, problem);
}

/** What `activityContent` takes from the template: a built-in's definition (its alert) or an app-defined one's payload needs. */
export function contentContext(template: ResolvedTemplate): { template?: TemplateDefinition; custom?: CustomContent } {
  return template.builtIn ? { template: template.builtIn } : { custom: customContent(template.custom) };
}

/** The payload needs of an activity's app-defined template, read in `r`; undefined for a built-in (or a template gone). */
export async function customOf(r: Sql, appId: string, slug: string): Promise<CustomContent | undefined> {
  if (findTemplate(slug)) return undefined;
  const row = await liveActivityTemplatesRepository(r).find(appId, slug);
  return row ? customContent(definitionOf(row)) : undefined;
}
