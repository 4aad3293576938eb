import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { AppParams, errors, Success } from '../../http/schemas';
import type { Services } from '../../services';
import { adminGroup } from '../admin/admin.guard';
import { FREQUENCY_CAP_DOC, FrequencyCapBody, QUIET_HOURS_DOC, QuietHoursBody } from '../../http/delivery-limits.schemas';
import { APP_ID_PATTERN, type SecretKind } from './apps.service';
import { DEFAULT_LIVE_ACTIVITY_BUDGET, MAX_PRIORITY10_PER_HOUR } from './live-activity-budget';
import { checkApnsIds, checkApnsKey, checkEndpoint, checkServiceAccount } from './credentials';

const Name = t.String({ minLength: 1, maxLength: 200 });
const SecretsBody = t.Object({ appSecret: t.String(), signingSecret: t.String() });
const PerHour = (what: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_PRIORITY10_PER_HOUR, description: `Priority-10 updates per activity per device in a sliding hour ${what}.` });
const LiveActivityBudgetBody = t.Object(
  {
    priority10PerHour: t.Optional(PerHour(`that \`priority: "auto"\` sends; past it updates go at 5 (default ${DEFAULT_LIVE_ACTIVITY_BUDGET.priority10PerHour})`)),
    frequentPriority10PerHour: t.Optional(
      PerHour(`on a device whose app reported \`frequentPushesEnabled: true\` (default ${DEFAULT_LIVE_ACTIVITY_BUDGET.frequentPriority10PerHour})`),
    ),
  },
  { additionalProperties: false, description: 'The budget `priority: "auto"` keeps to (docs/live-activity-budget.md); a field left out stays as it is.' },
);
const SECRET_KINDS: Record<string, SecretKind> = { 'app-secret': 'appSecret', 'signing-secret': 'signingSecret' };

/** Admin API of apps: lifecycle, secrets, and APNs / FCM credentials. */
export function appsAdminRoutes(services: Services) {
  const { apps, ctx } = services;
  const outbound = { allowPrivate: ctx.config.security.allow_private_endpoints };
  return adminGroup(services, 'Admin: apps')
    .get('/plans', () => ({
      plans: Object.entries(ctx.config.plans).map(([name, p]) => ({
        name,
        liveActivities: p.live_activities,
        minutes: p.minutes ?? null,
        overage: p.overage,
      })),
    }), { response: errors(401), detail: { summary: 'List plans (from the configuration)' } })
    .get('/apps', async () => ({ apps: (await apps.list()).map((row) => apps.view(row)) }), {
      response: errors(401),
      detail: { summary: 'List apps' },
    })
    .post(
      '/apps',
      async ({ body, set }) => {
        const created = await apps.create({ ...body, source: 'api' });
        set.status = 201;
        return { app: apps.view(created.row), appSecret: created.appSecret, signingSecret: created.signingSecret };
      },
      {
        body: t.Object(
          {
            id: t.Optional(t.String({ pattern: APP_ID_PATTERN, description: 'Identifier used in URLs; generated when absent.' })),
            name: t.Optional(Name),
            plan: t.Optional(t.String({ description: 'A plan name from the configuration; default pro.' })),
          },
          { additionalProperties: false },
        ),
        response: { ...errors(400, 401, 409) },
        detail: { summary: 'Create an app', description: 'Answers 201 with both secrets, generated from a CSPRNG.' },
      },
    )
    .get('/apps/:appId', async ({ params }) => apps.view(await apps.get(params.appId)), {
      params: AppParams,
      response: { ...errors(401, 404) },
      detail: { summary: 'Get an app' },
    })
    .patch('/apps/:appId', async ({ params, body }) => apps.view(await apps.update(params.appId, body)), {
      params: AppParams,
      body: t.Object(
        {
          name: t.Optional(Name),
          plan: t.Optional(t.String()),
          defaultTimeZone: t.Optional(t.String({ description: "IANA time zone a `sendAtLocal` and quiet hours use for the app's devices that reported none (initially UTC)." })),
          liveActivityBudget: t.Optional(LiveActivityBudgetBody),
          quietHours: t.Optional(t.Union([QuietHoursBody, t.Null()], { description: `${QUIET_HOURS_DOC} \`null\`: none (the initial setting).` })),
          frequencyCap: t.Optional(t.Union([FrequencyCapBody, t.Null()], { description: `${FREQUENCY_CAP_DOC} \`null\`: no cap (the initial setting).` })),
        },
        { additionalProperties: false },
      ),
      response: { ...errors(400, 401, 404) },
      detail: {
        summary: 'Change an app: name, plan, default time zone, Live Activity budget, quiet hours, frequency cap',
        description: 'Absent fields stay as they are. End users may have their own quiet hours and cap (`PUT/PATCH /api/apps/{appId}/users/{endUserId}`).',
      },
    })
    .delete(
      '/apps/:appId',
      async ({ params }) => {
        await apps.remove(params.appId);
        return { success: true as const };
      },
      { params: AppParams, response: { 200: Success, ...errors(401, 404) }, detail: { summary: 'Delete an app and all its data' } },
    )
    .get('/apps/:appId/secrets', async ({ params }) => apps.secrets(await apps.get(params.appId)), {
      params: AppParams,
      response: { 200: SecretsBody, ...errors(401, 404) },
      detail: { summary: "Show the app's App Secret and Signing Secret" },
    })
    .post(
      '/apps/:appId/secrets/:kind',
      async ({ params }) => {
        const kind = SECRET_KINDS[params.kind]!;
        return { [kind]: await apps.setSecret(params.appId, kind) };
      },
      {
        params: t.Object({ appId: t.String(), kind: t.Union([t.Literal('app-secret'), t.Literal('signing-secret')]) }),
        response: { ...errors(400, 401, 404) },
        detail: { summary: 'Rotate one secret', description: 'The old value stops working at once; the new one is returned.' },
      },
    )
    .put(
      '/apps/:appId/apns',
      async ({ params, body }) => {
        checkApnsIds(body);
        checkApnsKey(body.key);
        await checkEndpoint(body.endpoint, 'endpoint', outbound);
        await checkEndpoint(body.sandboxEndpoint, 'sandboxEndpoint', outbound);
        await apps.setApns(params.appId, { ...body, environment: body.environment ?? 'production' });
        return apps.view(await apps.get(params.appId));
      },
      {
        params: AppParams,
        body: t.Object(
          {
            bundleId: t.String({ minLength: 1 }),
            teamId: t.String({ minLength: 1 }),
            keyId: t.String({ minLength: 1 }),
            key: t.String({ minLength: 1, description: 'Contents of the .p8 auth key (PEM).' }),
            environment: t.Optional(
              t.Union([t.Literal('production'), t.Literal('sandbox')], { description: 'Default APNs environment of the app’s devices; default production.' }),
            ),
            endpoint: t.Optional(t.String({ description: "Override of Apple's production host." })),
            sandboxEndpoint: t.Optional(t.String({ description: "Override of Apple's sandbox host." })),
            ca: t.Optional(t.String({ description: 'Extra trusted CA (PEM) for those endpoints.' })),
          },
          { additionalProperties: false },
        ),
        response: { ...errors(400, 401, 404) },
        detail: { summary: 'Set APNs credentials', description: 'Stored encrypted; resumes a paused APNs channel.' },
      },
    )
    .delete(
      '/apps/:appId/apns',
      async ({ params }) => {
        await apps.setApns(params.appId, undefined);
        return apps.view(await apps.get(params.appId));
      },
      { params: AppParams, response: { ...errors(401, 404) }, detail: { summary: 'Remove APNs credentials (iOS falls back to the simulator)' } },
    )
    .put(
      '/apps/:appId/fcm',
      async ({ params, body }) => {
        const serviceAccount = checkServiceAccount(body.serviceAccount);
        await checkEndpoint(body.endpoint, 'endpoint', outbound);
        await checkEndpoint(serviceAccount.token_uri, 'serviceAccount.token_uri', outbound);
        await apps.setFcm(params.appId, { serviceAccount, ...(body.endpoint ? { endpoint: body.endpoint } : {}) });
        return apps.view(await apps.get(params.appId));
      },
      {
        params: AppParams,
        body: t.Object(
          {
            serviceAccount: t.Object({}, { additionalProperties: true, description: 'The Firebase service account JSON.' }),
            endpoint: t.Optional(t.String({ description: "Override of Google's FCM host." })),
          },
          { additionalProperties: false },
        ),
        response: { ...errors(400, 401, 404) },
        detail: { summary: 'Set FCM credentials', description: 'Stored encrypted; resumes a paused FCM channel.' },
      },
    )
    .delete(
      '/apps/:appId/fcm',
      async ({ params }) => {
        await apps.setFcm(params.appId, undefined);
        return apps.view(await apps.get(params.appId));
      },
      { params: AppParams, response: { ...errors(401, 404) }, detail: { summary: 'Remove FCM credentials (Android falls back to the simulator)' } },
    );
}
