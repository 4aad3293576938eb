import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../../lib/clock';
import type { ApnsCredentials } from '../../../apps/credentials';
import { retryAfterMs } from '../transport';
import { apnsBroadcastOutcome, type BroadcastOutcome } from './apns.broadcast-outcome';
import { apnsErrorBody, apnsHeader, type ApnsClient } from './apns.client';

/**
 * Apple's broadcast article names the device-push hosts in its connection section (its samples
 * show api-broadcast.…): those are the defaults, so broadcasts share the pooled connections of
 * device pushes; `broadcast_endpoint` overrides them (docs/broadcast-channels.md).
 */
export const APNS_BROADCAST_PRODUCTION = 'https://api.push.apple.com';
export const APNS_BROADCAST_SANDBOX = 'https://api.sandbox.push.apple.com';
/** Largest broadcast payload APNs accepts (device pushes: 4,096). */
export const BROADCAST_PAYLOAD_LIMIT = 5120;

type Environment = 'production' | 'sandbox';

/** Overrides of the broadcast hosts (config `[apps.apns] broadcast_endpoint`, `sandbox_broadcast_endpoint`). */
export type BroadcastHosts = Pick<ApnsCredentials, 'broadcastEndpoint' | 'sandboxBroadcastEndpoint'>;

/** One broadcast: an update or end of the Live Activity on a channel, to every device subscribed. */
export interface BroadcastRequest {
  creds: ApnsCredentials;
  environment: Environment;
  channelId: string;
  /** 10 now, 5 power-aware, 1 never wakes the device. */
  priority: 10 | 5 | 1;
  /** Unix seconds; 0 = one attempt, not stored (the only value a No Message Stored channel takes). */
  expiration: number;
  /** The exact JSON body (`aps` with timestamp, event, content-state, …), at most 5,120 bytes. */
  body: string;
}

/** The broadcast host for an environment, unless the credentials override it. */
export function broadcastOrigin(hosts: BroadcastHosts | undefined, environment: Environment): string {
  const override = environment === 'sandbox' ? hosts?.sandboxBroadcastEndpoint : hosts?.broadcastEndpoint;
  if (override) return override.replace(/\/+$/, '');
  return environment === 'sandbox' ? APNS_BROADCAST_SANDBOX : APNS_BROADCAST_PRODUCTION;
}

/**
 * Sends broadcasts (`POST /4/broadcasts/apps/<bundleId>`) over the APNs client's pooled HTTP/2
 * connections and provider tokens, to the host the app's credentials name, and says what became of each (apns.broadcast-outcome.ts):
 * delivered carries Apple's `apns-unique-id`.
 * @example const outcome = await broadcaster.send({ creds, environment: 'production', channelId, priority: 10, expiration: 0, body });
 */
export class ApnsBroadcaster {
  constructor(
    private readonly apns: ApnsClient,
    private readonly options: { clock: Clock },
  ) {}

  async send(request: BroadcastRequest): Promise<BroadcastOutcome> {
    const url = `${broadcastOrigin(request.creds, request.environment)}/4/broadcasts/apps/${request.creds.bundleId}`;
    const headers = {
      'apns-request-id': randomUUID(),
      'apns-channel-id': request.channelId,
      'apns-push-type': 'liveactivity',
      'apns-priority': String(request.priority),
      'apns-expiration': String(request.expiration),
      'content-type': 'application/json',
    };
    const answer = await this.apns.exchange(request.creds, 'POST', url, headers, request.body);
    if ('kind' in answer) return answer;
    return apnsBroadcastOutcome({
      status: answer.status,
      reason: answer.status === 200 ? undefined : apnsErrorBody(answer.body).reason,
      // Apple's id of the accepted message, to quote to Apple; no more room than a UUID.
      apnsId: (apnsHeader(answer.headers['apns-unique-id']) ?? apnsHeader(answer.headers['apns-request-id']))?.slice(0, 64),
      retryAfterMs: retryAfterMs(apnsHeader(answer.headers['retry-after']), this.options.clock.now()),
    });
  }
}
