import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../../lib/clock';
import type { ApnsCredentials } from '../../../apps/credentials';
import { apnsBroadcastOutcome, type BroadcastOutcome } from './apns.broadcast-outcome';
import { apnsErrorBody, apnsHeader, type ApnsClient } from './apns.client';
import type { Http2Answer } from './apns.session';
import { retryAfterMs } from '../transport';

export const APNS_CHANNELS_PRODUCTION = 'https://api-manage-broadcast.push.apple.com:2196';
export const APNS_CHANNELS_SANDBOX = 'https://api-manage-broadcast.sandbox.push.apple.com:2195';
/** Channels Apple keeps per app and environment; one more is refused with CannotCreateChannelConfig. */
export const APNS_CHANNEL_LIMIT = 10_000;

type Environment = 'production' | 'sandbox';

/** Overrides of Apple's channel-management hosts (config `[apps.apns] channels_endpoint`, `sandbox_channels_endpoint`). */
export type ChannelHosts = Pick<ApnsCredentials, 'channelsEndpoint' | 'sandboxChannelsEndpoint'>;

/**
 * No Message Stored (0): nothing kept for offline devices, a higher publishing budget, and every
 * broadcast must carry `apns-expiration: 0`. Most Recent Message Stored (1): the latest message is
 * kept up to 8 hours. Fixed when the channel is created.
 */
export type StoragePolicy = 0 | 1;

/** A refusal or failure of a management call (never `delivered`). */
export type ChannelFailure = Exclude<BroadcastOutcome, { kind: 'delivered' }>;

/** The channel-management host for an environment, unless the credentials override it. */
export function channelsOrigin(hosts: ChannelHosts | undefined, environment: Environment): string {
  const override = environment === 'sandbox' ? hosts?.sandboxChannelsEndpoint : hosts?.channelsEndpoint;
  if (override) return override.replace(/\/+$/, '');
  return environment === 'sandbox' ? APNS_CHANNELS_SANDBOX : APNS_CHANNELS_PRODUCTION;
}

/**
 * Apple's channel-management API (create, read, delete, list) over the APNs client's pooled HTTP/2
 * connections and provider tokens, at the hosts the app's credentials name; each call names its
 * environment, since channels of the sandbox and of production are separate. Refusals come back as outcomes (apns.broadcast-outcome.ts),
 * never as exceptions.
 * @example const made = await channels.create(creds, 'production', 0); if (made.kind === 'created') made.channelId;
 */
export class ApnsChannels {
  constructor(
    private readonly apns: ApnsClient,
    private readonly options: { clock: Clock },
  ) {}

  /** A new channel for Live Activities; its id is Apple's (base64, length not fixed). */
  async create(creds: ApnsCredentials, environment: Environment, policy: StoragePolicy): Promise<{ kind: 'created'; channelId: string } | ChannelFailure> {
    const body = JSON.stringify({ 'message-storage-policy': policy, 'push-type': 'LiveActivity' });
    const answer = await this.call(creds, environment, 'POST', 'channels', { 'content-type': 'application/json' }, body);
    if ('kind' in answer) return answer;
    const channelId = apnsHeader(answer.headers['apns-channel-id']);
    if (!channelId) return { kind: 'failed', reason: 'APNs created a channel without an apns-channel-id' };
    return { kind: 'created', channelId };
  }

  /** A channel's configuration; `channel-gone` when Apple does not know it. */
  async read(creds: ApnsCredentials, environment: Environment, channelId: string): Promise<{ kind: 'found'; policy: StoragePolicy } | ChannelFailure> {
    const answer = await this.call(creds, environment, 'GET', 'channels', { 'apns-channel-id': channelId });
    if ('kind' in answer) return answer;
    const policy = parse(answer.body)?.['message-storage-policy'];
    if (policy !== 0 && policy !== 1) return { kind: 'failed', reason: 'APNs answered a channel read without its message-storage-policy' };
    return { kind: 'found', policy };
  }

  /** Deletes a channel for good (Apple never issues its id again); `channel-gone` when it was already gone. */
  async remove(creds: ApnsCredentials, environment: Environment, channelId: string): Promise<{ kind: 'deleted' } | ChannelFailure> {
    const answer = await this.call(creds, environment, 'DELETE', 'channels', { 'apns-channel-id': channelId });
    return 'kind' in answer ? answer : { kind: 'deleted' };
  }

  /** Every channel id the app holds in this environment (orphans included). */
  async list(creds: ApnsCredentials, environment: Environment): Promise<{ kind: 'listed'; channelIds: string[] } | ChannelFailure> {
    const answer = await this.call(creds, environment, 'GET', 'all-channels', {});
    if ('kind' in answer) return answer;
    const channels = parse(answer.body)?.channels;
    if (!Array.isArray(channels) || !channels.every((c) => typeof c === 'string')) return { kind: 'failed', reason: 'APNs answered a channel list without channels' };
    return { kind: 'listed', channelIds: channels };
  }

  /** The answer of a 2xx, or what a refusal or failure means. */
  private async call(
    creds: ApnsCredentials,
    environment: Environment,
    method: string,
    resource: 'channels' | 'all-channels',
    headers: Record<string, string>,
    body = '',
  ): Promise<Http2Answer | ChannelFailure> {
    const url = `${channelsOrigin(creds, environment)}/1/apps/${creds.bundleId}/${resource}`;
    const answer = await this.apns.exchange(creds, method, url, { 'apns-request-id': randomUUID(), ...headers }, body);
    if ('kind' in answer) return answer;
    if (answer.status >= 200 && answer.status < 300) return answer;
    const outcome = apnsBroadcastOutcome({
      status: answer.status,
      reason: apnsErrorBody(answer.body).reason,
      retryAfterMs: retryAfterMs(apnsHeader(answer.headers['retry-after']), this.options.clock.now()),
    });
    return outcome.kind === 'delivered' ? { kind: 'failed', reason: `HTTP ${answer.status}` } : outcome;
  }
}

function parse(body: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(body) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
