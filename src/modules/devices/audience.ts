import { t } from 'elysia';
import { HttpError } from '../../lib/errors';
import type { AudienceFilter } from './devices.repository';
import { MAX_TAG_VALUE, MAX_TAGS, requireTagKey } from './tags';

/** At most this many values in one tag's list (a list matches any of them). */
export const MAX_AUDIENCE_VALUES = 100;

/** The `audience` of a send, a Live Activity start and broadcast subscribers (issue 38). */
export const AudienceBody = t.Object(
  {
    tags: t.Optional(
      t.Record(
        t.String(),
        t.Union([t.String({ maxLength: MAX_TAG_VALUE }), t.Array(t.String({ maxLength: MAX_TAG_VALUE }), { minItems: 1, maxItems: MAX_AUDIENCE_VALUES })]),
        {
          maxProperties: MAX_TAGS,
          description: 'End users whose tags have these values (set by `PUT …/users/{endUserId}`); a list matches any of its values. Every key must match.',
          examples: [{ plan: ['gold', 'platinum'] }],
        },
      ),
    ),
    platform: t.Optional(t.Union([t.Literal('ios'), t.Literal('android')], { description: 'Only devices of this platform.' })),
  },
  {
    additionalProperties: false,
    description: 'Who to reach instead of `targetUsers`: every given condition must hold. Streams its devices as a send to everyone does.',
  },
);

/** The audience as the repositories take it, its tag keys checked (the schema checks the rest). */
export function audienceFilter(audience: { tags?: Record<string, string | string[]>; platform?: 'ios' | 'android' }): AudienceFilter {
  for (const key of Object.keys(audience.tags ?? {})) requireTagKey(key, 'audience tag key');
  return audience;
}

/** A request names its end users or an audience, not both. */
export function requireOneTarget(body: { targetUsers?: unknown; audience?: unknown }): void {
  if (body.targetUsers !== undefined && body.audience !== undefined) throw new HttpError(400, 'audience and targetUsers cannot be given together');
}
