import type { AppContext } from '../../context';
import { HttpError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AppRow } from '../apps/apps.types';
import type { LiveActivityContent } from '../delivery/message-content';
import { MAX_PAYLOAD_BYTES, renderPayloads, type RenderedPayloads } from '../delivery/payloads';
import { activityContent } from './live-activities.content';
import { contentOptions } from './live-activities.options';
import { firstTimestamp } from './live-activities.types';
import { minutesExhausted, usedMinutes } from './live-activities.usage';
import { contentContext, requireValidData, resolveTemplate } from './resolved-template';
import type { AudienceFilter } from '../devices/devices.types';
import type { ContentOptionsInput } from './live-activities.options';

/** A start as the route validated it: the template's data, the targets, and the options (dates as given). */
export interface StartInput extends ContentOptionsInput {
  templateSlug: string;
  /** Strings for a built-in template; typed values for an app-defined one. */
  attributes?: Record<string, unknown>;
  contentState: Record<string, unknown>;
  targetUsers?: string[];
  /** Instead of `targetUsers`: the end users whose tags match, on their devices of the platform (issue 38). */
  audience?: AudienceFilter;
}

/** Refuses content that neither APNs nor FCM would accept; answers its payloads as rendered for the check. */
export function requireDeliverable(content: LiveActivityContent): RenderedPayloads {
  const rendered = renderPayloads(content);
  if (rendered.bytes > MAX_PAYLOAD_BYTES) throw new HttpError(400, `payload exceeds ${MAX_PAYLOAD_BYTES} bytes`);
  return rendered;
}

/**
 * A start's checks, now or scheduled: the plan has live activities (403), the template and data are
 * valid (400), the start's payload fits (400), the billing period's minutes are not used up (429).
 * Answers the template and the start's content (its activity id a placeholder each start replaces).
 */
export async function checkStart(ctx: AppContext, app: AppRow, input: StartInput) {
  const plan = ctx.config.plans[app.plan];
  if (!plan?.live_activities) throw new HttpError(403, 'live activities are not available on your current plan');
  const template = await resolveTemplate(ctx.db.sql, app.id, input.templateSlug);
  requireValidData(template, input.attributes, input.contentState);
  const now = ctx.clock.now();
  const attributes = input.attributes ?? {};
  // Every start carries the same data and alert; only the activity id (of fixed length) differs.
  const base = activityContent(
    'start',
    { id: newId('la', now), templateSlug: input.templateSlug, attributes, contentState: input.contentState },
    { now, ...contentContext(template), apnsTimestamp: firstTimestamp(now), options: contentOptions(input) },
  );
  requireDeliverable(base);
  if (minutesExhausted(plan, await usedMinutes(ctx.db.sql, app.id, now))) throw new HttpError(429, 'live activity minutes limit exceeded for this billing period');
  return { plan, template, base, now, attributes };
}
