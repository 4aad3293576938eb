import type { DeliveryOutcomeLabel } from '../../metrics/metrics';
import { refusalReason } from '../../tokens/tokens.service';
import { deliveryFailed, tokenInvalidated } from '../../webhooks/delivery-events';
import { pausedHold, parkedReason, WAITING_FOR_TOKEN } from '../holds/hold-kind';
import type { Outcome } from '../providers/transport';
import { retryDelay, type BackoffPolicy } from '../../../queue/backoff';
import type { DeliveryResult } from './delivery.types';
import type { AppChannels, ClaimedDelivery, Route } from './delivery.routing';

/**
 * What an outcome means, decided here once and only here (pure: no database, no clock of its own):
 * the row's next status and hold, what else changes with it (a token invalidated, a channel
 * paused, the latest-wins check, the webhook events). The repository applies these effects as
 * given (delivery.repository.ts record()).
 */

export type SendRoute = Extract<Route, { action: 'send' }>;
/** The result of an attempt before its status: what the worker records of the request. */
export type Sent = Omit<DeliveryResult, 'status' | 'reason' | 'holdKind'>;

/** A decision, and how islet_deliveries_total counts it (`provider`: none when decided without sending). */
export interface Decision {
  result: DeliveryResult;
  provider: string;
  label: DeliveryOutcomeLabel;
}

/** A delivery routing settled without sending: held for its token, parked on a paused channel, dropped or failed. */
export function unsentDecision(row: ClaimedDelivery, route: Exclude<Route, SendRoute>): Decision {
  const base = { id: row.id, attempts: row.attempts, nextAttemptAt: row.nextAttemptAt, provider: null, providerId: null, sentPayload: null, holdKind: null };
  switch (route.action) {
    case 'hold':
      return {
        result: { ...base, status: 'held', holdKind: 'token', reason: WAITING_FOR_TOKEN, holdFor: { activityId: row.activityId ?? '', deviceId: row.deviceId } },
        provider: 'apns',
        label: 'held',
      };
    case 'park':
      return { result: { ...base, status: 'held', holdKind: pausedHold(route.provider), reason: parkedReason(route.provider) }, provider: route.provider, label: 'held' };
    case 'drop':
      return { result: { ...base, status: 'dropped', reason: route.reason }, provider: 'none', label: 'dropped' };
    case 'fail':
      return { result: { ...base, status: 'failed', reason: route.reason }, provider: 'none', label: 'failed' };
  }
}

/**
 * A provider's answer: delivered, a retry about the message or its token, a refused token, refused
 * credentials (the channel pauses), or a failure. Connection failures and channel-wide slow-downs
 * are the endpoint guard's (endpoint-guard.ts). `tokenBackoffUntil`: a 429 about the device token,
 * whose other deliveries wait as long.
 */
export function sentDecision(
  input: { row: ClaimedDelivery; route: SendRoute; app: AppChannels; sent: Sent },
  outcome: Exclude<Outcome, { kind: 'unreachable' }>,
  policy: { now: number; random: () => number; backoff: BackoffPolicy },
): Decision & { tokenBackoffUntil?: number } {
  const { row, route, app, sent } = input;
  const provider = route.transport;
  const decided = (result: DeliveryResult, label: DeliveryOutcomeLabel) => ({ result, provider, label });
  switch (outcome.kind) {
    case 'delivered':
      return decided({ ...sent, status: 'delivered', holdKind: null, providerId: outcome.providerId ?? null, reason: null }, 'delivered');
    case 'retry': {
      if (sent.attempts >= policy.backoff.maxAttempts)
        return decided({ ...sent, status: 'failed', holdKind: null, reason: `gave up after ${sent.attempts} attempts: ${outcome.reason}` }, 'failed');
      const at = policy.now + retryDelay(sent.attempts, outcome.afterMs, policy.random, policy.backoff);
      const retry = decided({ ...sent, status: 'pending', holdKind: null, nextAttemptAt: at, reason: outcome.reason }, 'retry');
      return outcome.scope === 'token' ? { ...retry, tokenBackoffUntil: at } : retry;
    }
    case 'drop-token': {
      const reason = refusalReason(outcome.reason, route.environment);
      const invalidateToken = row.tokenId === null ? undefined : { tokenId: row.tokenId, reason, since: outcome.since };
      return decided({ ...sent, status: 'dropped', holdKind: null, reason, invalidateToken }, 'dropped');
    }
    case 'pause-channel': {
      // Not the message's fault: the attempt is not counted, and it goes out once the channel resumes.
      const p = route.request.provider;
      const pauseChannel = { appId: row.appId, provider: p, reason: outcome.reason, sealed: p === 'apns' ? app.apnsSealed : app.fcmSealed };
      return decided({ ...sent, attempts: row.attempts, status: 'held', holdKind: pausedHold(p), reason: parkedReason(p), pauseChannel }, 'paused');
    }
    case 'failed':
      return decided({ ...sent, status: 'failed', holdKind: null, reason: outcome.reason }, 'failed');
  }
}

/**
 * What follows from a decided result, whoever decided it (routing, the provider's answer, the
 * endpoint guard): back to wait (pending or held) is superseded instead if a newer update was
 * queued meanwhile; a retry the provider answered keeps its attempt; a failure tells
 * delivery.failed; an invalidated token tells device.token_invalidated.
 */
export function withEffects(result: DeliveryResult, row: ClaimedDelivery): DeliveryResult {
  const waiting = result.status === 'pending' || result.status === 'held';
  const effects: DeliveryResult = { ...result, supersedeIfStale: waiting, recordAttempt: result.status === 'pending' && result.provider !== null };
  if (result.status === 'failed')
    effects.events = [
      deliveryFailed({ id: row.id, appId: row.appId, kind: row.kind, activityId: row.activityId, deviceId: row.deviceId, endUserId: row.endUserId, platform: row.platform, reason: result.reason, attempts: result.attempts }),
    ];
  const t = result.invalidateToken;
  if (t && row.tokenKind && row.tokenDeviceId)
    effects.invalidateToken = {
      ...t,
      event: tokenInvalidated({ appId: row.appId, tokenKind: row.tokenKind, deviceId: row.tokenDeviceId, activityId: row.tokenActivityId, endUserId: row.endUserId, reason: t.reason }),
    };
  return effects;
}
