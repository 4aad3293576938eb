import { t } from 'elysia';
import { AppParams, errors, Success, withDetail } from '../../http/schemas';
import { HttpError } from '../../lib/errors';
import type { Services } from '../../services';
import { adminGroup } from '../admin/admin.guard';
import { DEMO_RIDE_TEMPLATE } from '../apps/demo.service';
import { ACTIVITY_ID_KEY, ATTRIBUTES_TYPE_PATTERN, ATTRIBUTES_TYPE_RULE, MAX_FIELDS, MAX_TEMPLATES, SLUG_PATTERN, SLUG_RULE } from './custom-templates';
import { TEMPLATE_SLUGS } from './templates';

const Field = t.Object(
  {
    type: t.Union(
      [t.Literal('string'), t.Literal('integer'), t.Literal('number'), t.Literal('boolean'), t.Literal('date')],
      { description: 'string, integer, number (a Double), boolean, or date (sent as an ISO 8601 timestamp; APNs gets seconds since 2001-01-01, Swift’s `Date` encoding).' },
    ),
    required: t.Optional(t.Boolean({ description: 'true: every start (attributes) or every contentState must give it. Default false (optional in the app’s struct).' })),
    list: t.Optional(t.Boolean({ description: 'true: an array of values of `type` (`[String]`). Default false.' })),
  },
  { additionalProperties: false },
);

const Fields = (part: string) =>
  t.Record(t.String(), Field, {
    description: `The ${part} fields by name (letters, digits and _, at most ${MAX_FIELDS}); \`${ACTIVITY_ID_KEY}\` is reserved.`,
  });

const Definition = {
  attributesType: withDetail(
    t.String({
      pattern: ATTRIBUTES_TYPE_PATTERN,
      description: 'The name of the app’s Swift `ActivityAttributes` struct: the APNs `attributes-type` of a start, and the type whose push-to-start token a start uses.',
    }),
    ATTRIBUTES_TYPE_RULE,
  ),
  attributes: t.Optional(Fields('static (attributes)')),
  contentState: Fields('dynamic (contentState)'),
};

/** A new template for the create example (the demo already has `ride`, the other examples' template). */
const MATCH = {
  slug: 'match',
  attributesType: 'MatchAttributes',
  attributes: { home: { type: 'string', required: true }, away: { type: 'string', required: true } },
  contentState: {
    homeScore: { type: 'integer', required: true },
    awayScore: { type: 'integer', required: true },
    possession: { type: 'number' },
    halfTime: { type: 'boolean' },
    kickoff: { type: 'date' },
    scorers: { type: 'string', list: true },
  },
};

const CreateBody = t.Object(
  { slug: withDetail(t.String({ pattern: SLUG_PATTERN, description: `Lowercase letters, digits and -; not one of the built-ins (${TEMPLATE_SLUGS.join(', ')}).` }), SLUG_RULE), ...Definition },
  { additionalProperties: false, examples: [MATCH] },
);
const { slug: _slug, ...rideBody } = DEMO_RIDE_TEMPLATE;
/** What GET answers beyond the definition: a replace accepts them back when they match (slug: the path's). */
const READ_ONLY = {
  slug: t.Optional(t.String({ description: 'Read-only: accepted when it is the path’s.' })),
  source: t.Optional(t.String({ description: 'Read-only: accepted when it matches.' })),
  createdAt: t.Optional(t.String({ description: 'Read-only: accepted when it matches.' })),
  updatedAt: t.Optional(t.String({ description: 'Read-only: accepted when it matches.' })),
};
const ReplaceBody = t.Object({ ...READ_ONLY, ...Definition }, {
  additionalProperties: false,
  examples: [{ ...rideBody, contentState: { ...DEMO_RIDE_TEMPLATE.contentState, speedKmh: { type: 'number' } } }],
});

const TemplateView = t.Object({
  slug: t.String(),
  attributesType: t.String(),
  attributes: t.Record(t.String(), Field),
  contentState: t.Record(t.String(), Field),
  source: t.Union([t.Literal('api'), t.Literal('config')], { description: 'config: declared in the TOML under the app (made to match it at every start).' }),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
});

const SlugParams = t.Object({ appId: t.String({ description: 'The app identifier.' }), slug: t.String({ description: 'The template slug.' }) });

/** Admin API of app-defined Live Activity templates (issue 39). */
export function liveActivityTemplatesAdminRoutes(services: Services) {
  const { apps, liveActivityTemplates: templates } = services;
  return adminGroup(services, 'Admin: live activity templates')
    .get('/apps/:appId/live-activity-templates', async ({ params }) => (await apps.get(params.appId), { templates: await templates.list(params.appId) }), {
      params: AppParams,
      response: { 200: t.Object({ templates: t.Array(TemplateView, { description: 'The app’s own templates by slug (the eight built-ins are not listed).' }) }), ...errors(401, 404) },
      detail: { summary: 'List the app’s Live Activity templates' },
    })
    .post(
      '/apps/:appId/live-activity-templates',
      async ({ params, body, set }) => {
        await apps.get(params.appId);
        const created = await templates.create(params.appId, { attributes: {}, ...body });
        set.status = 201;
        return created;
      },
      {
        params: AppParams,
        body: CreateBody,
        response: { 201: TemplateView, ...errors(400, 401, 404, 409) },
        detail: {
          summary: 'Define a Live Activity template',
          description:
            'A template of the app’s own `ActivityAttributes` type with typed fields; starts, updates and ends then accept its slug and check values against the types. ' +
            `Errors: 409 for a built-in slug, an existing slug, or more than ${MAX_TEMPLATES} templates; 400 naming the invalid name or field.`,
        },
      },
    )
    .get('/apps/:appId/live-activity-templates/:slug', async ({ params }) => (await apps.get(params.appId), templates.get(params.appId, params.slug)), {
      params: SlugParams,
      response: { 200: TemplateView, ...errors(401, 404) },
      detail: { summary: 'Get a Live Activity template', description: 'Errors: 404 `live activity template not found`.' },
    })
    .put(
      '/apps/:appId/live-activity-templates/:slug',
      async ({ params, body }) => {
        await apps.get(params.appId);
        const { slug, source, createdAt, updatedAt, ...definition } = body;
        if (slug !== undefined && slug !== params.slug) throw new HttpError(400, `slug must be the path's (${params.slug}): a template cannot be renamed`);
        if (source !== undefined || createdAt !== undefined || updatedAt !== undefined) {
          const current: Record<string, unknown> = await templates.get(params.appId, params.slug);
          for (const [field, value] of Object.entries({ source, createdAt, updatedAt }))
            if (value !== undefined && value !== current[field]) throw new HttpError(400, `${field} is read-only: leave it out, or send what GET answered (${String(current[field])})`);
        }
        return templates.replace(params.appId, params.slug, { attributes: {}, ...definition });
      },
      {
        params: SlugParams,
        body: ReplaceBody,
        response: { 200: TemplateView, ...errors(400, 401, 404, 409) },
        detail: {
          summary: 'Replace a Live Activity template',
          description:
            'While Active activities use the template, the replacement may only add optional fields (409 naming the field otherwise: a removed, changed or required new field, or another attributesType). ' +
            'Errors: 404 `live activity template not found`; 409 for a built-in slug.',
        },
      },
    )
    .delete(
      '/apps/:appId/live-activity-templates/:slug',
      async ({ params }) => {
        await apps.get(params.appId);
        await templates.remove(params.appId, params.slug);
        return { success: true as const };
      },
      {
        params: SlugParams,
        response: { 200: Success, ...errors(401, 404, 409) },
        detail: { summary: 'Delete a Live Activity template', description: 'Errors: 409 while Active activities use it, or for a built-in slug; 404 `live activity template not found`.' },
      },
    );
}
