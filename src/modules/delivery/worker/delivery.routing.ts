import type { ApnsCredentials, FcmCredentials } from '../../apps/credentials';
import { apnsOrigin } from '../providers/apns/apns.client';
import { fcmRequest } from '../providers/fcm/fcm.sender';
import type { MessageContent } from '../message-content';
import { apnsRequest, fcmMessage, MAX_PAYLOAD_BYTES } from '../payloads';
import type { PushRequest, TransportName } from '../providers/transport';
import { routeWebPush, type WebPushChannel } from './webpush.routing';

/** A claimed delivery with everything its routing needs (the deliveries repository joins it). */
export interface ClaimedDelivery {
  id: number;
  appId: string;
  messageId: number;
  deviceId: string;
  activityId: string | null;
  attempts: number;
  nextAttemptAt: number;
  /** The message kind (notification, la_start, la_update, la_end), for metrics. */
  kind: string;
  content: string;
  /** The body the message's first delivery recorded (`messages.sent_body`), if any yet. */
  sentBody: string | null;
  /** Null when the device was removed. */
  platform: 'ios' | 'android' | 'web' | null;
  /** The device's end user (for webhook events). */
  endUserId: string | null;
  /** The ledger token the delivery goes to (null: not known yet, or removed with its device). */
  tokenId: number | null;
  tokenKind: 'apns_device' | 'apns_push_to_start' | 'apns_activity' | 'fcm_registration' | 'webpush_subscription' | null;
  tokenValue: string | null;
  /** A web subscription's sealed keys (tokens.secret_sealed). */
  tokenSecret: string | null;
  tokenDeviceId: string | null;
  /** The token's activity (an activity's own update token), for device.token_invalidated. */
  tokenActivityId: string | null;
  /** The token's APNs environment; null: the app's default. */
  environment: 'production' | 'sandbox' | null;
  tokenState: 'active' | 'invalid' | null;
  invalidReason: string | null;
}

/** An app's delivery channels as the worker sees them for one batch. */
export interface AppChannels {
  apns?: ApnsCredentials;
  fcm?: FcmCredentials;
  /** The sealed columns, so that a pause applies only to the credentials that failed. */
  apnsSealed: string | null;
  fcmSealed: string | null;
  apnsPausedReason: string | null;
  fcmPausedReason: string | null;
  /** Absent: the app has no Web Push. */
  webPush?: WebPushChannel;
}

export type Route =
  /** `environment`: the APNs host the token was sent to (for a BadDeviceToken's explanation). */
  | { action: 'send'; transport: TransportName; request: PushRequest; environment?: 'production' | 'sandbox' }
  /** An iOS update or end before the activity's own push token is known: held until it is. */
  | { action: 'hold' }
  /** The provider channel of the app is paused: parked until its credentials change. */
  | { action: 'park'; provider: 'apns' | 'fcm' }
  | { action: 'drop'; reason: string }
  | { action: 'fail'; reason: string };


/** Stands in for values the simulator cannot know without credentials or a device. */
const PLACEHOLDER = { bundleId: '{bundleId}', activityToken: '{activity-push-token}' };

interface Built {
  content: MessageContent;
  apns: Map<string, { headers: Record<string, string>; body: string; tooLarge: boolean }>;
  fcm?: Record<string, unknown>;
}

/**
 * Turns a claimed delivery into the exact provider request, or into the reason it cannot be sent
 * now. Message payloads are built once per message and bundle id and reused across the fan-out.
 */
export class DeliveryRouter {
  private readonly built = new Map<number, Built>();
  private readonly webPayloads = new Map<string, string>();

  route(row: ClaimedDelivery, channels: AppChannels): Route {
    if (row.platform === null) return { action: 'drop', reason: 'device removed' };
    // Only the token the delivery names decides: a refused activity token leaves the device's others alone.
    if (row.tokenState === 'invalid') return { action: 'drop', reason: `token invalid: ${row.invalidReason ?? 'refused by the provider'}` };
    if (row.tokenId !== null && row.tokenDeviceId !== row.deviceId) return { action: 'drop', reason: 'token moved to another device' };
    const built = this.build(row);
    if (row.platform === 'web') return routeWebPush(row, built.content, channels.webPush, this.webPayloads);
    return row.platform === 'ios' ? this.routeApns(row, built, channels) : this.routeFcm(row, built, channels);
  }

  private routeApns(row: ClaimedDelivery, built: Built, channels: AppChannels): Route {
    const creds = channels.apns;
    const content = built.content;
    let token = row.tokenValue;
    if (content.type === 'live_activity' && content.event !== 'start' && token === null) {
      // Without credentials nothing can reach a device anyway: the simulator shows what would go.
      if (creds) return { action: 'hold' };
      token = PLACEHOLDER.activityToken;
    }
    if (token === null) {
      const missing = content.type === 'live_activity' ? 'device has no push-to-start token' : 'device token removed';
      return { action: 'fail', reason: missing };
    }
    if (creds && channels.apnsPausedReason) return { action: 'park', provider: 'apns' };
    const bundleId = creds?.bundleId ?? PLACEHOLDER.bundleId;
    let payload = built.apns.get(bundleId);
    if (!payload) {
      const request = apnsRequest(content, bundleId);
      const body = JSON.stringify(request.body);
      payload = { headers: request.headers, body, tooLarge: Buffer.byteLength(body) > MAX_PAYLOAD_BYTES };
      built.apns.set(bundleId, payload);
    }
    if (payload.tooLarge) return { action: 'fail', reason: `payload exceeds ${MAX_PAYLOAD_BYTES} bytes` };
    const environment = row.environment ?? creds?.environment ?? 'production';
    return {
      action: 'send',
      transport: creds ? 'apns' : 'simulator',
      environment,
      request: {
        appId: row.appId,
        provider: 'apns',
        // Encoded even though tokens are checked at the door: nothing may change the path's meaning.
        url: `${apnsOrigin(creds, environment)}/3/device/${token === PLACEHOLDER.activityToken ? token : encodeURIComponent(token)}`,
        headers: payload.headers,
        body: payload.body,
        apns: creds,
      },
    };
  }

  private routeFcm(row: ClaimedDelivery, built: Built, channels: AppChannels): Route {
    const creds = channels.fcm;
    if (row.tokenValue === null) return { action: 'fail', reason: 'device token removed' };
    if (creds && channels.fcmPausedReason) return { action: 'park', provider: 'fcm' };
    built.fcm ??= fcmMessage(built.content);
    return { action: 'send', transport: creds ? 'fcm' : 'simulator', request: fcmRequest(row.appId, creds, { token: row.tokenValue }, built.fcm) };
  }

  private build(row: ClaimedDelivery): Built {
    let built = this.built.get(row.messageId);
    if (!built) {
      // A fan-out claims the same message batch after batch; a few recent ones are enough.
      if (this.built.size >= 256) this.built.delete(this.built.keys().next().value!);
      built = { content: JSON.parse(row.content) as MessageContent, apns: new Map() };
      this.built.set(row.messageId, built);
    }
    return built;
  }
}

/**
 * The request as recorded in `deliveries.sent_payload`: method, URL, headers and body, never the
 * authorization. Without `body` when the message records it (`messages.sent_body`): see withSentBody.
 */
export function recordedRequest(request: PushRequest, body = true): string {
  const head = `{"method":"POST","url":${JSON.stringify(request.url)},"headers":${JSON.stringify(request.headers)}`;
  return body ? `${head},"body":${request.body}}` : `${head}}`;
}

/** A recorded request (`sent_payload`) made whole again: the message's body where the delivery left it out. */
export function withSentBody(sentPayload: string, messageBody: string | null): unknown {
  const request = JSON.parse(sentPayload) as Record<string, unknown>;
  if (!('body' in request) && messageBody !== null) request.body = JSON.parse(messageBody) as unknown;
  return request;
}
