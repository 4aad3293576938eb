import { Elysia, t } from 'elysia';
import { AppParams, errors, Success, withDetail } from '../../http/schemas';
import { HttpError } from '../../lib/errors';
import type { Services } from '../../services';
import { DeviceRecord, deviceView } from './devices.view';
import { registrationInput } from './device-registration';
import { withCanonicalPlace } from './device-place';
import { MAX_PUSH_TO_START_TYPES, SWIFT_TYPE_NAME, withTypedPushToStart } from './typed-push-to-start';

const signedBy = 'Authenticated by `X-Service-Key` (the app backend) or `X-End-User-Signature` = hex(HMAC-SHA256(Signing Secret, endUserId)) (the device).';

export const DeviceBody = t.Object(
  {
    endUserId: t.String({ minLength: 1, maxLength: 256, description: 'The end user this device belongs to.' }),
    platform: t.Union([t.Literal('ios'), t.Literal('android'), t.Literal('web')]),
    token: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 4096,
        description: 'iOS and Android (required): APNs device token (64 to 200 hex digits) or FCM registration token (letters, digits, -, _ and :).',
      }),
    ),
    subscription: t.Optional(
      t.Unknown({
        description:
          'web (required): what `PushSubscription.toJSON()` gives, `{endpoint, expirationTime, keys: {p256dh, auth}}`. The endpoint must be an https URL at a public address; the same endpoint registered again updates the device. The keys are stored encrypted and never shown.',
      }),
    ),
    pushToStartToken: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 4096,
        description:
          'iOS 17.2+: the Live Activity push-to-start token (`pushToStartTokenUpdates`, 64 to 200 hex digits). It belongs to one device: reported from a new device row (after a device-token rotation), it moves there.',
      }),
    ),
    pushToStartTokens: t.Optional(
      t.Record(t.String({ pattern: SWIFT_TYPE_NAME }), t.String({ minLength: 1, maxLength: 4096 }), {
        maxProperties: MAX_PUSH_TO_START_TYPES,
        description:
          'iOS 17.2+: push-to-start tokens per ActivityAttributes type, `{ "RideAttributes": "<hex>" }`: iOS issues one per type (`Activity<RideAttributes>.pushToStartTokenUpdates`), and a start of an app-defined template goes to the token of its `attributesType`. `IsletActivityAttributes` here is the same as `pushToStartToken`.',
      }),
    ),
    widgetPushToken: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 4096,
        description:
          'iOS 26+: the widget push token WidgetKit hands the `WidgetPushHandler` (`pushTokenDidChange(_:widgets:)`, `WidgetPushInfo.token` as hex, 64 to 200 hex digits): `POST …/widgets/reload` reaches it. iOS only: 400 on other platforms. Absent: unchanged.',
      }),
    ),
    controlPushToken: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 4096,
        description:
          'iOS 18+: the control push token WidgetKit hands the `ControlPushHandler` (`pushTokensDidChange(controls:)`, `ControlInfo.pushInfo?.token` as hex): `POST …/controls/reload` reaches it. With several controls send `controlPushTokens`. iOS only: 400 on other platforms. Absent: unchanged.',
      }),
    ),
    controlPushTokens: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 4096 }), {
        maxItems: 32,
        description:
          'iOS 18+: every control push token of the device, one per control with a push handler (`controls.compactMap { $0.pushInfo?.token }`, hex): the set replaces the tokens kept before, and a control reload reaches each. iOS only.',
      }),
    ),
    environment: t.Optional(
      t.Union([t.Literal('production'), t.Literal('sandbox')], {
        description:
          "iOS: the APNs host the device's tokens belong to: `production` (App Store, TestFlight) or `sandbox` (a development build run from Xcode). Absent: the app's APNs `environment`.",
      }),
    ),
    osVersion: t.Optional(
      withDetail(
        t.String({
          pattern: '^[0-9]{1,3}(\\.[0-9]{1,3}){0,2}$',
          description:
            'The OS version (`18.2`, Android `15`). iOS: a broadcast starts only on iOS 18 or later; an iPhone known to be older is skipped with a reason. Absent: unchanged (unknown: tried).',
          examples: ['18.2'],
        }),
        'osVersion must be a version such as 18.2',
      ),
    ),
    locale: t.Optional(
      t.String({
        maxLength: 64,
        description:
          "The device's language as a BCP 47 tag (`de-AT`, `pt-BR`, `zh-Hant-TW`; iOS `Locale.current.identifier(.bcp47)`, Android `Locale.getDefault().toLanguageTag()`): a localized template's text is chosen by it. Absent: unchanged.",
        examples: ['de-AT'],
      }),
    ),
    timeZone: t.Optional(
      t.String({
        maxLength: 64,
        description:
          "The device's IANA time zone (`Europe/Vienna`; iOS `TimeZone.current.identifier`, Android `ZoneId.systemDefault().id`): a `sendAtLocal` reaches it at that wall time there. Absent: unchanged.",
        examples: ['Europe/Vienna'],
      }),
    ),
    tester: t.Optional(t.Boolean({ description: 'Marks the end user as a tester (receives sends of Testing releases).' })),
  },
  { additionalProperties: false },
);

/** Public device registration: what makes an end user "connected". */
export function devicesRoutes(services: Services) {
  const { auth, devices, clock, ctx } = services;
  return new Elysia({ detail: { tags: ['Devices'] } })
    .post(
      '/api/apps/:appId/devices',
      async ({ params, body }) => {
        const input = await registrationInput(ctx, params.appId, body);
        const { device } = await devices.upsert(params.appId, withTypedPushToStart(withCanonicalPlace(input)), clock.now());
        return { device: deviceView(device) };
      },
      {
        // Authentication runs before validation, so an unauthenticated caller learns nothing.
        transform: async ({ params, body, request }) => {
          const endUserId = (body as { endUserId?: unknown } | undefined)?.endUserId;
          await auth.appOrEndUser(request, params.appId, typeof endUserId === 'string' ? endUserId : undefined);
        },
        params: AppParams,
        body: DeviceBody,
        response: { 200: t.Object({ device: DeviceRecord }), ...errors(400, 401, 413, 429) },
        detail: {
          summary: 'Register or refresh a device',
          description: `Upsert by app, platform and token (web: the subscription's endpoint). ${signedBy}`,
          security: [{ serviceKey: [] }, { endUserSignature: [] }],
        },
      },
    )
    .delete(
      '/api/apps/:appId/devices/:deviceId',
      async ({ params }) => {
        if (!(await devices.remove(params.appId, params.deviceId))) throw new HttpError(404, 'device not found');
        return { success: true as const };
      },
      {
        // Before the Idempotency-Key is looked at (a global beforeHandle): a refused request takes no key.
        transform: async ({ params, request }) => {
          const appId = params.appId ?? '';
          await auth.appOrEndUser(request, appId, (await devices.find(appId, params.deviceId ?? ''))?.endUserId);
        },
        params: t.Object({ appId: t.String(), deviceId: t.String() }),
        response: { 200: Success, ...errors(401, 404, 429) },
        detail: { summary: 'Remove a device', description: signedBy, security: [{ serviceKey: [] }, { endUserSignature: [] }] },
      },
    );
}
