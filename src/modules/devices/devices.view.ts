import { t } from 'elysia';
import { isoTime } from '../../lib/clock';
import type { DeviceRow } from './devices.repository';

export const DeviceRecord = t.Object({
  id: t.String({ description: 'Device identifier (`dev_…`), used to remove it.' }),
  endUserId: t.String(),
  platform: t.Union([t.Literal('ios'), t.Literal('android')]),
  environment: t.Union([t.Literal('production'), t.Literal('sandbox')]),
  hasPushToStartToken: t.Boolean({ description: 'iOS: whether a push-to-start token is known (needed to start activities).' }),
  valid: t.Boolean({ description: 'false once a provider refused the token; register it again to revive it.' }),
  invalidReason: t.Optional(t.String()),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
});

/** A device as the API shows it: tokens are never echoed back. */
export function deviceView(row: DeviceRow) {
  return {
    id: row.id,
    endUserId: row.endUserId,
    platform: row.platform,
    environment: row.environment,
    hasPushToStartToken: row.pushToStartToken !== null,
    valid: row.invalidatedAt === null,
    ...(row.invalidReason ? { invalidReason: row.invalidReason } : {}),
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  };
}
