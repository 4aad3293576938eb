import type { Outcome } from '../transport';
import { apnsOutcome, type ApnsResponse } from './apns.outcome';

/**
 * What an answer of the broadcast endpoint or the channel-management API means
 * (docs/broadcast-channels.md). A broadcast has no device token, so nothing drops a token; three
 * outcomes of its own stand beside the device-push ones:
 * - `channel-gone`: the channel does not exist at Apple (deleted, never created in this
 *   environment, or an id Apple cannot read): the broadcast is over.
 * - `feature-off`: Broadcast Capability is off for the app in Apple's developer portal; only the
 *   operator can fix it, and only the app's broadcasts wait (its device pushes are unaffected).
 * - `channel-limit`: the app already holds the 10,000 channels Apple allows in this environment.
 */
export type BroadcastOutcome =
  | Exclude<Outcome, { kind: 'drop-token' }>
  | { kind: 'channel-gone'; reason: string }
  | { kind: 'feature-off'; reason: string }
  | { kind: 'channel-limit'; reason: string };

const CHANNEL_GONE = new Set(['ChannelNotRegistered', 'BadChannelId']);
/** Operator guidance carried with `feature-off`, so the console can say what to do. */
export const FEATURE_OFF_HELP =
  'FeatureNotEnabled: enable Broadcast Capability for the app id in Apple’s developer portal (Certificates, IDs & Profiles > Identifiers > Push Notifications)';

/**
 * The one place that decides what a broadcast or channel-management answer means; the reasons
 * shared with device pushes (provider token, throttling, APNs failing) decide as they do there.
 * @example apnsBroadcastOutcome({ status: 400, reason: 'ChannelNotRegistered' }) // { kind: 'channel-gone', … }
 */
export function apnsBroadcastOutcome(res: ApnsResponse): BroadcastOutcome {
  if (res.status >= 200 && res.status < 300) return { kind: 'delivered', providerId: res.apnsId };
  if (res.reason && CHANNEL_GONE.has(res.reason)) return { kind: 'channel-gone', reason: res.reason };
  if (res.reason === 'FeatureNotEnabled') return { kind: 'feature-off', reason: FEATURE_OFF_HELP };
  if (res.reason === 'CannotCreateChannelConfig') return { kind: 'channel-limit', reason: res.reason };
  // TopicMismatch is how a token for another team's topic is refused here (device pushes never see it).
  if (res.reason === 'TopicMismatch') return { kind: 'pause-channel', reason: res.reason };
  const outcome = apnsOutcome(res);
  // No device token to drop: a 410 or a token reason here is not a broadcast's answer.
  return outcome.kind === 'drop-token' ? { kind: 'failed', reason: outcome.reason } : outcome;
}
