import { randomBytes, randomUUID } from 'node:crypto';
import type { Environment, PhoneFleet } from './apns-device-model';
import type { StandinAnswer } from './apns-answer';

/** Channels Apple keeps per app and environment at most (docs/broadcast-channels.md). */
export const CHANNEL_LIMIT = 10_000;
/** Largest broadcast payload Apple accepts. */
export const BROADCAST_PAYLOAD_LIMIT = 5120;
/** Apple gives no figure for "greater than the allowed length": the stand-in's own choice. */
const MAX_CHANNEL_ID_LENGTH = 128;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A management or broadcast answer; `commit` applies it (skipped when a fault replaces the answer). */
export type BroadcastAnswer = StandinAnswer & { commit?: () => void };

interface Channel {
  policy: 0 | 1;
}

/** Paths of the management API (`/1/…`) and the broadcast endpoint (`/4/…`). */
export const isBroadcastPath = (path: string): boolean => path.startsWith('/1/') || path.startsWith('/4/');

const fail = (status: number, reason: string): BroadcastAnswer => ({ status, reason });

/**
 * Apple's channel-management API and broadcast endpoint for one environment, as the APNs stand-in
 * serves them: channels per bundle id (at most 10,000), opaque random ids never issued twice, the
 * request checks and reasons of "Handling error responses from APNs", and a broadcast that reaches
 * every modelled iPhone subscribed to the channel.
 * @example const answer = channels.check('POST', '/1/apps/com.x/channels', headers, body);
 */
export class BroadcastChannels {
  private readonly apps = new Map<string, Map<string, Channel>>();
  private readonly issued = new Set<string>();
  private readonly featureOff = new Set<string>();
  private readonly refused = new Map<string, 'ChannelNotRegistered' | 'BadChannelId'>();

  constructor(
    readonly environment: Environment,
    private readonly options: { bundleIds?: string[]; phones?: PhoneFleet; limit?: number } = {},
  ) {
    options.phones?.knowChannels(environment, (id) => this.exists(id));
  }

  /** FeatureNotEnabled for this bundle id from now on (`off = false` turns the capability back on). */
  disableFeature(bundleId: string, off = true): void {
    if (off) this.featureOff.add(bundleId);
    else this.featureOff.delete(bundleId);
  }

  /**
   * From now on requests naming this channel answer `reason`: ChannelNotRegistered (deleted at
   * Apple by something else, or the capability turned off and on), BadChannelId (an id Apple no
   * longer reads).
   */
  refuseChannel(channelId: string, reason: 'ChannelNotRegistered' | 'BadChannelId'): void {
    this.refused.set(channelId, reason);
  }

  /** Channels an app may hold from now on (Apple: 10,000); `undefined` restores that. */
  setLimit(limit: number | undefined): void {
    this.options.limit = limit;
  }

  /** The channel ids an app holds now. */
  ids(bundleId: string): string[] {
    return [...(this.apps.get(bundleId)?.keys() ?? [])];
  }

  exists(channelId: string): boolean {
    for (const channels of this.apps.values()) if (channels.has(channelId)) return true;
    return false;
  }

  /** The answer to a request on a `/1/` or `/4/` path that passed the provider-token check. */
  check(method: string, path: string, headers: Record<string, string>, raw: string): BroadcastAnswer {
    const answer = this.route(method, path, headers, raw);
    const requestId = headers['apns-request-id'] ?? randomUUID();
    return { ...answer, headers: { 'apns-request-id': requestId, ...answer.headers } };
  }

  private route(method: string, path: string, headers: Record<string, string>, raw: string): BroadcastAnswer {
    const manage = path.match(/^\/1\/apps\/([^/]+)\/(channels|all-channels)$/);
    const send = path.match(/^\/4\/broadcasts\/apps\/([^/]+)$/);
    const bundleId = manage?.[1] ?? send?.[1];
    if (!bundleId) return fail(404, 'BadPath');
    const allowed = send ? ['POST'] : manage![2] === 'all-channels' ? ['GET'] : ['POST', 'GET', 'DELETE'];
    if (!allowed.includes(method)) return fail(405, 'MethodNotAllowed');
    if (bundleId.includes('.push-type.') || (this.options.bundleIds && !this.options.bundleIds.includes(bundleId))) return fail(400, 'TopicDisallowed');
    if (this.featureOff.has(bundleId)) return fail(400, 'FeatureNotEnabled');
    if (send) return this.broadcast(bundleId, headers, raw);
    if (manage![2] === 'all-channels') return { status: 200, body: JSON.stringify({ channels: this.ids(bundleId) }) };
    if (method === 'POST') return this.create(bundleId, raw);
    const found = this.channel(bundleId, headers);
    if ('status' in found) return found;
    if (method === 'GET') return { status: 200, body: JSON.stringify({ 'message-storage-policy': found.channel.policy, 'push-type': 'LiveActivity' }) };
    return { status: 204, commit: () => this.apps.get(bundleId)?.delete(found.id) };
  }

  private create(bundleId: string, raw: string): BroadcastAnswer {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return fail(400, 'BadRequestPayload');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail(400, 'BadRequestPayload');
    const fields = body as Record<string, unknown>;
    if (Object.keys(fields).some((k) => k !== 'message-storage-policy' && k !== 'push-type')) return fail(400, 'BadRequestParams');
    if (fields['push-type'] === undefined) return fail(400, 'MissingPushType');
    if (fields['push-type'] !== 'LiveActivity') return fail(400, 'InvalidPushType');
    const policy = fields['message-storage-policy'];
    if (policy !== 0 && policy !== 1) return fail(400, 'BadRequestParams');
    const channels = this.apps.get(bundleId) ?? new Map<string, Channel>();
    if (channels.size >= (this.options.limit ?? CHANNEL_LIMIT)) return fail(400, 'CannotCreateChannelConfig');
    let id: string;
    do id = randomBytes(16).toString('base64');
    while (this.issued.has(id));
    return {
      status: 201,
      headers: { 'apns-channel-id': id },
      commit: () => {
        this.issued.add(id);
        this.apps.set(bundleId, channels.set(id, { policy }));
      },
    };
  }

  /** The channel named by `apns-channel-id`, or the answer refusing it. */
  private channel(bundleId: string, headers: Record<string, string>): { id: string; channel: Channel } | BroadcastAnswer {
    const id = headers['apns-channel-id'];
    if (id === undefined || id === '') return fail(400, 'MissingChannelId');
    if (id.length > MAX_CHANNEL_ID_LENGTH || !BASE64.test(id)) return fail(400, 'BadChannelId');
    const refused = this.refused.get(id);
    if (refused) return fail(400, refused);
    const channel = this.apps.get(bundleId)?.get(id);
    return channel ? { id, channel } : fail(400, 'ChannelNotRegistered');
  }

  private broadcast(bundleId: string, headers: Record<string, string>, raw: string): BroadcastAnswer {
    const pushType = headers['apns-push-type'];
    if (pushType === undefined) return fail(400, 'MissingPushType');
    if (pushType.toLowerCase() !== 'liveactivity') return fail(400, 'InvalidPushType');
    const found = this.channel(bundleId, headers);
    if ('status' in found) return found;
    if (!['10', '5', '1'].includes(headers['apns-priority'] ?? '')) return fail(400, 'BadPriority');
    const expiration = headers['apns-expiration'];
    if (expiration === undefined || !/^\d{1,12}$/.test(expiration)) return fail(400, 'BadExpirationDate');
    if (found.channel.policy === 0 && Number(expiration) !== 0) return fail(400, 'BadExpirationDate');
    if (Buffer.byteLength(raw) > BROADCAST_PAYLOAD_LIMIT) return fail(413, 'PayloadTooLarge');
    let body: { aps?: unknown };
    try {
      body = JSON.parse(raw) as { aps?: unknown };
    } catch {
      return fail(400, 'BadRequestPayload');
    }
    if (typeof body?.aps !== 'object' || body.aps === null) return fail(400, 'PayloadEmpty');
    return {
      status: 200,
      headers: { 'apns-unique-id': randomUUID() },
      commit: () => this.options.phones?.broadcast(found.id, body, this.environment),
    };
  }
}
