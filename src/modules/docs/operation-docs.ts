import { t, type TSchema } from 'elysia';
import { Int } from '../../http/schemas';
import { DEMO } from '../apps/demo.service';

/**
 * What the generated document cannot know from the routes: request examples that work against the
 * demo app (`islet demo`, or "Create the demo app" in the console) as shipped, examples of path
 * parameters, and the success answers of admin operations that declare none. Applied by
 * polishDocument; docs.routes.test.ts sends every example to a demo instance and checks the answer
 * against the documented success response. A new route with a body needs its example here.
 */

/** Throwaway keys of the right kinds, for the credentials examples only: replace them with yours. */
const EXAMPLE_APNS_KEY = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgBU7UPhtCBj/k2iaH\n+Aj3j08PhNGll8XGy64Tz/xcPfahRANCAATegSokQiYpE0BQfIxNBxZDcWD28p+I\ncvzBDmYvV1u06H4sQDEnRSg0eoaX9ZI1TLNc+nt40zsYl+YddYHQykAj\n-----END PRIVATE KEY-----\n";
const EXAMPLE_SERVICE_ACCOUNT_KEY = "-----BEGIN PRIVATE KEY-----\nMIICdwIBADANBgkqhkiG9w0BAQEFAASCAmEwggJdAgEAAoGBAL89IqK9JU86QXT4\nTfK3yGJcvhObcUqU6UaUtp+206PH483dETGGlUHSV3OKFYDtwhkXOXE7MFUgln+7\nFKSsMbTXsnmQ02jcWiXVwLUA46LtWsTJ2C2Pxe78AimRd6vyN/MIgVHJhDfx3NFB\nOC9NBmI8W81IZ9h2rmzlzqy3zTVnAgMBAAECgYAIv400EJ8CTtHrvegi8FFUXpW7\nY+L83G8HcYohKEXqOhyrsC83KsbtKegiOvDc4wN8DlnsWh7N5h28XhyFo/LqFJrc\nXY9LUZeE4P3B0346fD0Ra3ilXeWbJD/MBcYXTXjAZEjHAwH/QwQlOifzgkjx5M9c\nVvIZJyZu6QAaU800cQJBAPDeeNwOcHFLpcCypaFMnou5HNuSyiy2dZJQlveX26Rb\n28TlXQsBD6hmhPa+CrkKcF8NrJh9qfvZNFQxHQGIXFsCQQDLQIlLbUjzcFE+q8qc\n5TyHPcdO7V1dAAPtoHit2IyKpykbi/Z4Z/rxj42A2wEJGdDsvTUnmDLQQix946OH\n20jlAkEAyZOFVbQHyeji+FcJYem7LXdnfSJla/HuhtpG3UILIIt3aloA+bqTnfzd\n/ZihZKYl0IajEKLp5MirkGHhwmyZzQJBALgSAkTk/CQ7m9h+DEh68o4oTNAV92+6\nC9Swd5o5e042hOwFnXj98i3CLAx+SjnLv4Im+HSbSamBxHleJ0NqPGECQFv5TMIi\nmdEdSYC5l4vmuf9xoCRczO15wuYpqZSyAtogpQ8X7H6ADn7frik38bzEgeY2QSd/\nO3un/7uRveSVgvA=\n-----END PRIVATE KEY-----\n";
/** The shape of a webhook endpoint id; the demo has none (see NOT_TRYABLE_ON_THE_DEMO). */
const EXAMPLE_WEBHOOK_ID = 'whk_0mwt00000a1b2c3d4e5f6g7h8';
/** 32 bytes in hex: the shape of an APNs token. */
const HEX_TOKEN = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';

/** Request body examples by operation (`METHOD /path/{param}`); several become a drop-down in Swagger UI. */
export const BODY_EXAMPLES: Record<string, unknown[]> = {
  'POST /api/apps/{appId}/devices': [
    { endUserId: DEMO.endUserId, platform: 'android', token: 'fcm-registration-token-from-the-app' },
    { endUserId: DEMO.endUserId, platform: 'ios', token: HEX_TOKEN, pushToStartToken: HEX_TOKEN.split('').reverse().join(''), environment: 'sandbox' },
    // An app with its own ActivityAttributes type (the demo's `ride` template) reports that type's token too.
    { endUserId: DEMO.endUserId, platform: 'ios', token: HEX_TOKEN, pushToStartToken: HEX_TOKEN.split('').reverse().join(''), pushToStartTokens: { RideAttributes: HEX_TOKEN.replace(/a/g, 'b') } },
  ],
  'POST /api/apps/{appId}/notifications/send': [
    { templateSlug: DEMO.notificationSlug, variables: { order: '#1042', eta: 'tomorrow' }, targetUsers: [DEMO.endUserId] },
    { templateSlug: 'welcome', variables: { name: 'there', app: 'Islet' } },
    // To everyone, spread evenly at 600 a minute (the rest waits `queued`; a cancel drops it).
    { templateSlug: 'welcome', variables: { name: 'there', app: 'Islet' }, throttlePerMinute: 600 },
    // To an audience (tags, platform, locales), with this send's own data, badge, collapse id and time to live over the template's.
    {
      templateSlug: DEMO.notificationSlug,
      variables: { order: '#1043', eta: 'on Friday' },
      audience: { tags: { plan: ['gold', 'platinum'] }, platform: 'ios', locales: ['en', 'de'] },
      data: { orderUrl: 'shop://orders/1043' },
      badge: 1,
      collapseId: 'order-1043',
      ttlSeconds: 3600,
    },
  ],
  // The demo's message went to demo-user's iPhone too.
  'POST /api/apps/{appId}/notifications/{messageId}/opened': [{ endUserId: DEMO.endUserId, deviceId: DEMO.iphoneId }],
  'POST /api/apps/{appId}/notifications/{messageId}/received': [{ endUserId: DEMO.endUserId, deviceId: DEMO.iphoneId }],
  'PUT /api/apps/{appId}/users/{endUserId}': [{ tags: { plan: 'gold', country: 'DE' } }],
  'PATCH /api/apps/{appId}/users/{endUserId}': [{ tags: { plan: 'platinum' } }, { tags: { country: null } }],
  'POST /api/apps/{appId}/notifications/audience-count': [{ audience: { tags: { plan: ['gold', 'platinum'] }, platform: 'ios' } }, { audience: { platform: 'android' } }],
  'POST /api/admin/apps': [{ id: 'acme-delivery', name: 'Acme Delivery', plan: 'pro' }],
  'PATCH /api/admin/apps/{appId}': [
    { name: 'Demo app (renamed)' },
    { plan: 'pro' },
    { defaultTimeZone: 'Europe/Vienna' },
    { liveActivityBudget: { priority10PerHour: 10, frequentPriority10PerHour: 60 } },
  ],
  'PUT /api/admin/apps/{appId}/apns': [
    { bundleId: 'com.example.demo', teamId: 'ABCDE12345', keyId: 'KEY1234567', key: EXAMPLE_APNS_KEY, environment: 'sandbox' },
  ],
  'PUT /api/admin/apps/{appId}/fcm': [
    {
      serviceAccount: {
        type: 'service_account',
        project_id: 'demo-project',
        client_email: 'islet@demo-project.iam.gserviceaccount.com',
        private_key: EXAMPLE_SERVICE_ACCOUNT_KEY,
      },
    },
  ],
  'PUT /api/admin/apps/{appId}/web-push': [{ subject: 'mailto:ops@example.com', defaultUrl: 'https://example.com/inbox' }],
  'PATCH /api/admin/apps/{appId}/end-users/{endUserId}': [{ tester: true }, { tester: false }],
  'POST /api/admin/apps/{appId}/devices': [
    { endUserId: 'demo-friend', platform: 'ios', token: HEX_TOKEN, pushToStartToken: HEX_TOKEN.split('').reverse().join('') },
    { endUserId: 'demo-friend', platform: 'android', token: 'simulated-android-token', tester: true },
  ],
  'POST /api/admin/apps/{appId}/releases': [
    { version: 3, templates: [{ slug: DEMO.notificationSlug, title: 'Order {{order}} is on its way', body: 'Track it in the app.' }] },
    {
      version: 4,
      templates: [
        {
          slug: DEMO.notificationSlug,
          title: 'Order {{order}} is on its way',
          body: 'Track it in the app.',
          localizations: { de: { title: 'Bestellung {{order}} ist unterwegs', body: 'Verfolge sie in der App.' }, 'de-AT': { title: 'Bestellung {{order}} is unterwegs' } },
        },
      ],
    },
  ],
  'PATCH /api/admin/apps/{appId}/releases/{version}': [{ status: 'Testing' }, { status: 'Live' }],
  'PUT /api/admin/apps/{appId}/releases/{version}/templates/{slug}': [
    { title: 'Order {{order}} has left the warehouse', body: 'It arrives {{eta}}.' },
    { title: 'Order {{order}} has left the warehouse', body: 'It arrives {{eta}}.', localizations: { fr: { title: 'La commande {{order}} est partie', body: 'Elle arrive {{eta}}.' } } },
  ],
};

/** Path parameter examples by name: the demo's ids. */
export const PARAM_EXAMPLES: Record<string, unknown> = {
  appId: DEMO.appId,
  endUserId: DEMO.endUserId,
  deviceId: DEMO.friendDeviceId,
  id: DEMO.activityId,
  version: DEMO.releaseVersion,
  slug: DEMO.notificationSlug,
  kind: 'app-secret',
  key: DEMO.streamKey,
  messageId: DEMO.messageId,
};

/** Where an operation needs another value than the name's default (the demo's Draft release 2 is the editable one). */
export const PARAM_OVERRIDES: Record<string, Record<string, unknown>> = {
  'PATCH /api/admin/apps/{appId}/releases/{version}': { version: DEMO.draftVersion },
  'PUT /api/admin/apps/{appId}/releases/{version}/templates/{slug}': { version: DEMO.draftVersion },
  'DELETE /api/admin/apps/{appId}/releases/{version}/templates/{slug}': { version: DEMO.draftVersion },
  'GET /api/admin/apps/{appId}/deliveries/{id}': { id: 1 },
  ...Object.fromEntries(['GET', 'PUT', 'DELETE'].map((m) => [`${m} /api/admin/apps/{appId}/live-activity-templates/{slug}`, { slug: DEMO.liveActivityTemplateSlug }])),
  ...Object.fromEntries(
    ['GET', 'PATCH', 'DELETE'].map((m) => [`${m} /api/admin/apps/{appId}/webhooks/{id}`, { id: EXAMPLE_WEBHOOK_ID }]),
  ),
  'POST /api/admin/apps/{appId}/webhooks/{id}/secret': { id: EXAMPLE_WEBHOOK_ID },
  'POST /api/admin/apps/{appId}/webhooks/{id}/test': { id: EXAMPLE_WEBHOOK_ID },
  'GET /api/admin/apps/{appId}/webhooks/{id}/attempts': { id: EXAMPLE_WEBHOOK_ID },
  ...Object.fromEntries(
    ['GET /api/apps/{appId}/broadcasts/{id}', 'PATCH /api/apps/{appId}/broadcasts/{id}', 'DELETE /api/apps/{appId}/broadcasts/{id}', 'POST /api/apps/{appId}/broadcasts/{id}/subscribers'].map(
      (key) => [key, { id: DEMO.broadcastId }],
    ),
  ),
};

/**
 * Parameter values that depend on the instance, looked up when the document is served: delivery
 * ids count across apps, so on an instance that delivered before `islet demo` the demo's first
 * delivery is not 1.
 */
export function instanceParamOverrides(firstDemoDeliveryId: number | undefined): Record<string, Record<string, unknown>> {
  return firstDemoDeliveryId === undefined ? {} : { 'GET /api/admin/apps/{appId}/deliveries/{id}': { id: firstDemoDeliveryId } };
}

/**
 * Body examples that depend on the instance's clock: the scheduled sends' times, two days from now
 * (a send may name at most 30 days ahead), so that "Try it out" works whenever the document is read.
 */
export function instanceBodyExamples(now: number): Record<string, unknown[]> {
  const day = new Date(now + 2 * 86_400_000).toISOString().slice(0, 10);
  const send = 'POST /api/apps/{appId}/notifications/send';
  const welcome = { templateSlug: 'welcome', variables: { name: 'there', app: 'Islet' } };
  return { [send]: [...BODY_EXAMPLES[send]!, { ...welcome, sendAt: `${day}T09:00:00+01:00` }, { ...welcome, sendAtLocal: `${day}T09:00` }] };
}

/**
 * Operations whose "Try it out" cannot work on a bare demo instance as shipped, and why. Their
 * examples are still checked against the request schema; everything else is sent to a demo
 * instance by the docs tests.
 */
export const NOT_TRYABLE_ON_THE_DEMO: Record<string, string> = {
  'DELETE /api/admin/apps/{appId}/broadcast-channels': 'removes an orphan channel at Apple: the demo has no APNs credentials, hence no channel at Apple',
  'DELETE /api/apps/{appId}/notifications/{messageId}': 'needs a scheduled send (the demo message went at once): paste the messageId a send with sendAt or sendAtLocal answered',
  'POST /api/admin/apps/{appId}/webhooks': 'needs a URL that resolves to a public address receiving the events (the outbound policy): use your own receiver',
  ...Object.fromEntries(
    [
      'GET /api/admin/apps/{appId}/webhooks/{id}',
      'PATCH /api/admin/apps/{appId}/webhooks/{id}',
      'DELETE /api/admin/apps/{appId}/webhooks/{id}',
      'POST /api/admin/apps/{appId}/webhooks/{id}/secret',
      'POST /api/admin/apps/{appId}/webhooks/{id}/test',
      'GET /api/admin/apps/{appId}/webhooks/{id}/attempts',
    ].map((op) => [op, 'needs a webhook endpoint: paste the id that creating one answered']),
  ),
};

const Time = t.String({ format: 'date-time' });
const Nullable = (schema: TSchema) => t.Union([schema, t.Null()]);
const Channel = t.Object(
  {
    transport: t.Union([t.Literal('simulator'), t.Literal('apns'), t.Literal('fcm')], { description: 'simulator while the app has no credentials for the platform.' }),
    status: t.Union([t.Literal('active'), t.Literal('paused')]),
    pausedReason: Nullable(t.String({ description: 'Why the provider refused the credentials; delivery waits for new ones.' })),
  },
  { additionalProperties: true, description: 'APNs channels also show bundleId, teamId, keyId, environment and endpoints; FCM ones projectId, clientEmail and endpoint. Never a key.' },
);
const AppRecord = t.Object({
  id: t.String({ examples: [DEMO.appId] }),
  name: t.String(),
  plan: t.String(),
  source: t.Union([t.Literal('config'), t.Literal('api')]),
  defaultTimeZone: t.String({ description: "The IANA zone a `sendAtLocal` uses for the app's devices that reported none (initially UTC)." }),
  liveActivityBudget: t.Object(
    {
      priority10PerHour: Int({ description: 'Priority-10 updates per activity per device in a sliding hour that `priority: "auto"` sends.' }),
      frequentPriority10PerHour: Int({ description: 'The same on a device whose app reported `frequentPushesEnabled: true`.' }),
    },
    { description: 'The budget `priority: "auto"` keeps to (the defaults unless set).' },
  ),
  createdAt: Time,
  updatedAt: Time,
  channels: t.Object({ apns: Channel, fcm: Channel }),
});
const Plan = t.Object({ name: t.String(), liveActivities: t.Boolean(), minutes: Nullable(Int()), overage: t.Boolean() });
const EndUser = t.Object({ id: t.String(), tester: t.Boolean(), devices: Int({ description: 'Valid devices.' }), createdAt: Time, lastSeenAt: Time });

/** Success answers of operations whose route declares none. */
export const SUCCESS_RESPONSES: Record<string, { status: number; description: string; schema?: TSchema; text?: string }> = {
  'GET /metrics': { status: 200, description: 'Prometheus text exposition format.', text: 'text/plain' },
  'GET /api/admin/plans': { status: 200, description: 'The plans of the configuration.', schema: t.Object({ plans: t.Array(Plan) }) },
  'GET /api/admin/apps': { status: 200, description: 'Every app, without secrets.', schema: t.Object({ apps: t.Array(AppRecord) }) },
  'POST /api/admin/apps': {
    status: 201,
    description: 'The app, with both secrets: shown once here (and later under GET …/secrets).',
    schema: t.Object({ app: AppRecord, appSecret: t.String(), signingSecret: t.String() }),
  },
  'GET /api/admin/apps/{appId}': { status: 200, description: 'The app, without secrets.', schema: AppRecord },
  'PATCH /api/admin/apps/{appId}': { status: 200, description: 'The app as changed.', schema: AppRecord },
  'POST /api/admin/apps/{appId}/secrets/{kind}': {
    status: 200,
    description: 'The new value of the rotated secret (`appSecret` or `signingSecret`); the old one no longer works.',
    schema: t.Object({ appSecret: t.Optional(t.String()), signingSecret: t.Optional(t.String()) }),
  },
  'PUT /api/admin/apps/{appId}/apns': { status: 200, description: 'The app, its APNs channel now on the credentials.', schema: AppRecord },
  'DELETE /api/admin/apps/{appId}/apns': { status: 200, description: 'The app, iOS back on the simulator.', schema: AppRecord },
  'PUT /api/admin/apps/{appId}/fcm': { status: 200, description: 'The app, its FCM channel now on the credentials.', schema: AppRecord },
  'DELETE /api/admin/apps/{appId}/fcm': { status: 200, description: 'The app, Android back on the simulator.', schema: AppRecord },
  'GET /api/admin/apps/{appId}/end-users': {
    status: 200,
    description: 'End users, most recently seen first.',
    schema: t.Object({ endUsers: t.Array(EndUser), total: Int() }),
  },
  'PATCH /api/admin/apps/{appId}/end-users/{endUserId}': { status: 200, description: 'The end user as changed.', schema: t.Object({ id: t.String(), tester: t.Boolean() }) },
};
