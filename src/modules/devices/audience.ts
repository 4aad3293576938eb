import { t } from 'elysia';
import { FIELD, withDetail } from '../../http/schemas';
import { HttpError } from '../../lib/errors';
import { canonicalLocale } from '../../lib/locale';
import type { AudienceFilter } from './devices.types';
import { MAX_TAG_VALUE, MAX_TAGS, requireTagKey } from './tags';

/** At most this many values in one tag's list (a list matches any of them). */
export const MAX_AUDIENCE_VALUES = 100;
/** At most this many locales in an audience. */
export const MAX_AUDIENCE_LOCALES = 50;

/** The `audience` of a send, a Live Activity start and broadcast subscribers (issue 38). */
export const AudienceBody = t.Object(
  {
    tags: t.Optional(
      t.Record(
        t.String(),
        withDetail(
          t.Union([t.String({ maxLength: MAX_TAG_VALUE }), t.Array(t.String({ maxLength: MAX_TAG_VALUE }), { minItems: 1, maxItems: MAX_AUDIENCE_VALUES })]),
          `${FIELD} must be a string or a list of 1 to ${MAX_AUDIENCE_VALUES} strings, each at most ${MAX_TAG_VALUE} characters`,
        ),
        {
          maxProperties: MAX_TAGS,
          description: 'End users whose tags have these values (set by `PUT …/users/{endUserId}`); a list matches any of its values. Every key must match.',
          examples: [{ plan: ['gold', 'platinum'] }],
        },
      ),
    ),
    platform: t.Optional(t.Union([t.Literal('ios'), t.Literal('android'), t.Literal('web')], { description: 'Only devices of this platform (`web`: browsers with a Web Push subscription).' })),
    locales: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: MAX_AUDIENCE_LOCALES,
        description: "Only devices whose `locale` is one of these: a language (`de`) matches its regional tags too (`de-AT`), a full tag (`pt-BR`) only itself. Devices that reported no locale don't match.",
        examples: [['de', 'pt-BR']],
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Who to reach instead of `targetUsers`: every given condition must hold. Streams its devices as a send to everyone does.',
  },
);

/** The audience as the repositories take it, its tag keys checked (the schema checks the rest). */
export function audienceFilter(audience: AudienceFilter): AudienceFilter {
  for (const key of Object.keys(audience.tags ?? {})) requireTagKey(key, 'audience tag key');
  if (!audience.locales) return audience;
  // Devices store their locale in canonical form (lib/locale.ts): `pt-br` here matches `pt-BR` there.
  const locales = audience.locales.map((tag) => {
    const canonical = canonicalLocale(tag);
    if (!canonical) throw new HttpError(400, `audience locale "${tag.slice(0, 64)}" is not a BCP 47 language tag`);
    return canonical;
  });
  return { ...audience, locales: [...new Set(locales)] };
}

/** A request names its end users or an audience, not both. */
export function requireOneTarget(body: { targetUsers?: unknown; audience?: unknown }): void {
  if (body.targetUsers !== undefined && body.audience !== undefined) throw new HttpError(400, 'audience and targetUsers cannot be given together');
}
