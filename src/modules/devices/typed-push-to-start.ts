import type { DeviceInput } from './devices.types';

/** The ActivityAttributes type of the eight built-in templates: its token is `pushToStartToken`. */
export const BUILT_IN_ATTRIBUTES_TYPE = 'IsletActivityAttributes';
/** A Swift type name (the attributes type an app-defined template declares). */
export const SWIFT_TYPE_NAME = '^[A-Za-z_][A-Za-z0-9_]{0,127}$';
/** Attributes types one registration may carry tokens for. */
export const MAX_PUSH_TO_START_TYPES = 16;

/**
 * A registration's push-to-start tokens as the ledger keeps them: iOS issues one per
 * ActivityAttributes type (`Activity<RideAttributes>.pushToStartTokenUpdates`); the
 * IsletActivityAttributes entry of `pushToStartTokens` is the same as `pushToStartToken` (which
 * wins when both are given), the others are kept per type.
 */
export function withTypedPushToStart<T extends DeviceInput>(input: T): T {
  const { [BUILT_IN_ATTRIBUTES_TYPE]: builtIn, ...typed } = input.pushToStartTokens ?? {};
  return { ...input, pushToStartToken: input.pushToStartToken ?? builtIn, pushToStartTokens: typed };
}
