import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { AppParams, errors, IntegerParam, Success, FIELD, withDetail } from '../../../http/schemas';
import type { Services } from '../../../services';
import { adminGroup } from '../../admin/admin.guard';
import { TemplateOptionFields } from './template-options';
import { LocalizationsField } from '../send/localizations';

const MAX_VERSION = 2_147_483_647;
const SLUG_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';
const Slug = withDetail(
  t.String({ pattern: SLUG_PATTERN, description: 'Identifies the template within its release: letters, digits, `.`, `_`, `-`.' }),
  `${FIELD} must be 1-128 letters, digits, ., _ or -, starting with a letter or digit`,
);
// Required and not empty unless the template is silent, which refuses them (checked by the service, with the schema's own words).
const Title = t.Optional(
  t.String({ maxLength: 4096, description: 'Notification title; may hold `{{name}}` placeholders. Required and not empty unless `silent`; a silent template takes none.' }),
);
const BodyText = t.Optional(t.String({ maxLength: 4096, description: 'Notification body; may hold `{{name}}` placeholders. Required unless `silent`; a silent template takes none.' }));
const Status = t.Union([t.Literal('Draft'), t.Literal('Testing'), t.Literal('Live'), t.Literal('Archived')]);

const TemplateRecord = t.Object({
  slug: t.String(),
  title: t.String(),
  body: t.String(),
  placeholders: t.Array(t.String(), { description: 'Placeholder names found in title, body, subtitle, data values, image, collapseId and localizations, in order of appearance.' }),
  ...TemplateOptionFields,
  localizations: LocalizationsField,
});

/** A template's texts and optional platform features, as create and put take them. */
const TemplateFields = { title: Title, body: BodyText, ...TemplateOptionFields, localizations: LocalizationsField };

const ReleaseRecord = t.Object({
  version: Type.Integer(),
  status: Status,
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
  templates: t.Array(TemplateRecord),
});

const Version = IntegerParam({ minimum: 1, maximum: MAX_VERSION, description: 'The release version.' }, 'version must be a positive integer');
const VersionParams = t.Object({ appId: t.String(), version: Version });
const TemplateParams = t.Object({ appId: t.String(), version: Version, slug: Slug });

const statusRules =
  'Draft → Testing, Live or Archived; Testing → Draft, Live or Archived; Live → Archived; Archived → Live (roll back). ' +
  'Making a release Live archives the previous Live release. Templates of a Live or Archived release cannot be changed.';

/** Admin API of releases and their notification templates (used by the console and by tests). */
export function releasesAdminRoutes(services: Services) {
  const { releases } = services;
  return adminGroup(services, 'Admin: releases')
    .get('/apps/:appId/releases', async ({ params }) => ({ releases: await releases.list(params.appId) }), {
      params: AppParams,
      response: { 200: t.Object({ releases: t.Array(ReleaseRecord) }), ...errors(401, 404) },
      detail: { summary: 'List releases', description: 'Every release of the app with its templates, newest version first.' },
    })
    .post(
      '/apps/:appId/releases',
      async ({ params, body, set }) => {
        const release = await releases.create(params.appId, body);
        set.status = 201;
        return release;
      },
      {
        params: AppParams,
        body: t.Object(
          {
            version: Type.Integer({ minimum: 1, maximum: MAX_VERSION, description: 'Release version, unique within the app.' }),
            status: t.Optional(t.Union([t.Literal('Draft'), t.Literal('Testing'), t.Literal('Live')], { description: 'Default Draft.' })),
            templates: t.Optional(
              t.Array(t.Object({ slug: Slug, ...TemplateFields }, { additionalProperties: false }), {
                description: 'Notification templates; slugs must be unique within the release.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: ReleaseRecord, ...errors(400, 401, 404, 409) },
        detail: {
          summary: 'Create a release',
          description: `Answers 201 with the release. Placeholders are \`{{name}}\` (spaces allowed inside the braces). ${statusRules}`,
        },
      },
    )
    .get('/apps/:appId/releases/:version', ({ params }) => releases.get(params.appId, params.version), {
      params: VersionParams,
      response: { 200: ReleaseRecord, ...errors(400, 401, 404) },
      detail: { summary: 'Get a release' },
    })
    .patch('/apps/:appId/releases/:version', ({ params, body }) => releases.setStatus(params.appId, params.version, body.status), {
      params: VersionParams,
      body: t.Object({ status: Status }, { additionalProperties: false }),
      response: { 200: ReleaseRecord, ...errors(400, 401, 404, 409) },
      detail: { summary: 'Change the status of a release', description: statusRules },
    })
    .put(
      '/apps/:appId/releases/:version/templates/:slug',
      async ({ params, body, set }) => {
        const { created, template } = await releases.putTemplate(params.appId, params.version, params.slug, body);
        set.status = created ? 201 : 200;
        return template;
      },
      {
        params: TemplateParams,
        body: t.Object(TemplateFields, { additionalProperties: false }),
        response: { 200: TemplateRecord, 201: TemplateRecord, ...errors(400, 401, 404, 409) },
        detail: {
          summary: 'Create or replace a notification template',
          description: 'Answers 201 when created, 200 when replaced. Only in a Draft or Testing release (409 otherwise).',
        },
      },
    )
    .delete(
      '/apps/:appId/releases/:version/templates/:slug',
      async ({ params }) => {
        await releases.deleteTemplate(params.appId, params.version, params.slug);
        return { success: true as const };
      },
      {
        params: TemplateParams,
        response: { 200: Success, ...errors(400, 401, 404, 409) },
        detail: { summary: 'Delete a notification template', description: 'Only in a Draft or Testing release (409 otherwise).' },
      },
    );
}
