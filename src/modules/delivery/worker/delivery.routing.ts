import { apnsOrigin } from '../providers/apns/apns.client';
import { fcmRequest } from '../providers/fcm/fcm.sender';
import type { MessageContent } from '../message-content';
import { apnsRequest, fcmMessage, liveActivityHeaders, MAX_PAYLOAD_BYTES } from '../payloads';
import type { PushRequest } from '../providers/transport';
import { routeWebPush } from './webpush.routing';
import type { WebPushContent } from './webpush.content';
import type { AppChannels, ClaimedDelivery, Route } from './routing.types';

export type { AppChannels, ClaimedDelivery, Route } from './routing.types';

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
  private readonly webPushes = new Map<string, WebPushContent>();

  route(row: ClaimedDelivery, channels: AppChannels): Route {
    if (row.platform === null) return { action: 'drop', reason: 'device removed' };
    // Only the token the delivery names decides: a refused activity token leaves the device's others alone.
    if (row.tokenState === 'invalid') return { action: 'drop', reason: `token invalid: ${row.invalidReason ?? 'refused by the provider'}` };
    if (row.tokenId !== null && row.tokenDeviceId !== row.deviceId) return { action: 'drop', reason: 'token moved to another device' };
    const built = this.build(row);
    if (row.platform === 'web') return routeWebPush(row, built.content, channels.webPush, this.webPushes);
    if (built.content.type === 'reload' && row.platform !== 'ios') return { action: 'drop', reason: 'a WidgetKit reload is for iOS devices only' };
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
      // A Live Activity's body is the same for every bundle id: the one its message keeps (an
      // update's, rendered by the request that checked its size) is sent as it is.
      if (content.type === 'live_activity' && row.sentBody !== null) payload = { headers: liveActivityHeaders(content, bundleId), body: row.sentBody, tooLarge: Buffer.byteLength(row.sentBody) > MAX_PAYLOAD_BYTES };
      else {
        const request = apnsRequest(content, bundleId);
        const body = JSON.stringify(request.body);
        payload = { headers: request.headers, body, tooLarge: Buffer.byteLength(body) > MAX_PAYLOAD_BYTES };
      }
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
