import { t } from 'elysia';
import { shownId } from '../../lib/anonymous';
import { isoTime } from '../../lib/clock';
import type { DeviceWithTokens } from './devices.types';

export const DeviceRecord = t.Object({
  id: t.String({ description: 'Device identifier (`dev_…`), used to remove it.' }),
  endUserId: t.Union([t.String(), t.Null()], { description: 'The end user; null once they were erased (the device waits for an end push, then goes).' }),
  platform: t.Union([t.Literal('ios'), t.Literal('android'), t.Literal('web')]),
  endpointOrigin: t.Optional(t.String({ description: "web: the origin of the subscription's endpoint (which push service), never the endpoint or its keys.", examples: ['https://web.push.apple.com'] })),
  environment: t.Optional(
    t.Union([t.Literal('production'), t.Literal('sandbox')], { description: "The APNs environment the device declared; absent: the app's default." }),
  ),
  osVersion: t.Optional(t.String({ description: 'The OS version the device registered, if it did.' })),
  locale: t.Optional(t.String({ description: 'The BCP 47 language tag the device reported (canonical case), if it did.', examples: ['de-AT'] })),
  timeZone: t.Optional(t.String({ description: 'The IANA time zone the device reported, if it did.', examples: ['Europe/Vienna'] })),
  hasPushToStartToken: t.Boolean({ description: 'iOS: whether an active push-to-start token is known, of any attributes type (needed to start activities).' }),
  pushToStartTypes: t.Array(t.String(), {
    description:
      'iOS: the ActivityAttributes types the device holds an active push-to-start token for, sorted: `IsletActivityAttributes` for the built-in templates, the app\'s own types (`RideAttributes`) for its templates. Empty: none.',
    examples: [['IsletActivityAttributes', 'RideAttributes']],
  }),
  hasWidgetPushToken: t.Boolean({ description: 'iOS: whether an active widget push token is known (`POST …/widgets/reload` reaches the device).' }),
  hasControlPushToken: t.Boolean({ description: 'iOS: whether an active control push token is known (`POST …/controls/reload` reaches the device).' }),
  valid: t.Boolean({ description: 'false once a provider refused the device token; register it again to revive it.' }),
  invalidReason: t.Optional(t.String({ description: 'Why the provider refused the device token (e.g. a sandbox/production mix-up).' })),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
});

/** A device as the API shows it: tokens are never echoed back. */
export function deviceView(row: DeviceWithTokens) {
  const types = row.pushToStartTypes ? [...new Set(row.pushToStartTypes.split(','))].sort() : [];
  return {
    id: row.id,
    endUserId: shownId(row.endUserId),
    platform: row.platform,
    ...(row.platform === 'web' ? { endpointOrigin: URL.canParse(row.token) ? new URL(row.token).origin : '' } : {}),
    ...(row.environment ? { environment: row.environment } : {}),
    ...(row.osVersion ? { osVersion: row.osVersion } : {}),
    ...(row.locale ? { locale: row.locale } : {}),
    ...(row.timeZone ? { timeZone: row.timeZone } : {}),
    hasPushToStartToken: types.length > 0,
    pushToStartTypes: types,
    hasWidgetPushToken: row.hasWidgetToken,
    hasControlPushToken: row.hasControlToken,
    valid: row.tokenState === 'active',
    ...(row.tokenState === 'invalid' && row.invalidReason ? { invalidReason: row.invalidReason } : {}),
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  };
}
