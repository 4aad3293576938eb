import type { Store } from '../../db/store';
import type { DeviceRow } from './devices.repository';

/** The ActivityAttributes type of the eight built-in templates: its token is `pushToStartToken`. */
const BUILT_IN_ATTRIBUTES_TYPE = 'IsletActivityAttributes';
/** A Swift type name (the attributes type an app-defined template declares). */
export const SWIFT_TYPE_NAME = '^[A-Za-z_][A-Za-z0-9_]{0,127}$';
/** Attributes types one registration may carry tokens for. */
export const MAX_PUSH_TO_START_TYPES = 16;

/**
 * Records the push-to-start tokens an iPhone reported per ActivityAttributes type (iOS issues one
 * per type: `Activity<RideAttributes>.pushToStartTokenUpdates`), in the ledger as
 * `apns_push_to_start` with their type; a device keeps one active token per type. The
 * IsletActivityAttributes entry is the same as `pushToStartToken`. Android devices have none.
 */
export async function reportTypedPushToStart(
  store: Store,
  appId: string,
  device: Pick<DeviceRow, 'id' | 'platform' | 'environment'>,
  tokens: Record<string, string> | undefined,
  now: number,
): Promise<void> {
  const entries = Object.entries(tokens ?? {});
  if (device.platform !== 'ios' || entries.length === 0) return;
  await store.write(async (tx) => {
    for (const [type, value] of entries) {
      await tx.tokens.report(appId, 'apns_push_to_start', value, device.id, device.environment, now, type === BUILT_IN_ATTRIBUTES_TYPE ? null : type);
    }
  });
}
