import type { AppContext } from '../../context';
import type { ApnsCredentials, FcmCredentials } from '../apps/credentials';
import { ApnsBroadcaster } from '../delivery/providers/apns/apns.broadcast';
import { FEATURE_OFF_HELP, type BroadcastOutcome } from '../delivery/providers/apns/apns.broadcast-outcome';
import { ApnsChannels } from '../delivery/providers/apns/apns.channels';
import { ApnsClient } from '../delivery/providers/apns/apns.client';
import { Pump } from '../../queue/pump';
import { AppChannelsCache } from '../delivery/worker/app-channels';
import { retryDelay } from '../../queue/backoff';
import { fcmRequest } from '../delivery/providers/fcm/fcm.sender';
import type { LiveActivityContent } from '../delivery/message-content';
import { apnsRequest, fcmMessage } from '../delivery/payloads';
import type { Outcome, Transports } from '../delivery/providers/transport';
import type { BroadcastOp, BroadcastRow } from './broadcasts.types';
import { broadcastsRepository } from './broadcasts.repository';
import { webhookEventsRepository } from '../webhooks/webhook-events.repository';

/** A step that cannot go while Broadcast Capability is off is tried again after this long (the operator may have turned it on). */
export const FEATURE_OFF_RETRY_MS = 5 * 60_000;
/** Most Recent Message Stored keeps a message at most 8 hours: the expiration Islet asks for. */
const STORED_FOR_S = 8 * 3600;
const BATCH = 64;

interface Creds {
  apns?: ApnsCredentials;
  fcm?: FcmCredentials;
}

/** What became of one half of a step: done (sent, or nothing to send to), again later, or the broadcast is over. */
type Half = { kind: 'done'; failed?: string } | { kind: 'later'; reason: string; afterMs?: number; attempt: boolean } | { kind: 'over'; reason: string } | { kind: 'held'; reason: string };

/**
 * Drains the broadcast outbox (broadcast_ops): per broadcast, its steps in order — make the
 * channel at Apple, send each update or end to the channel (one request) and to the FCM topic
 * (one message), delete the channel once the end's dismissal date has passed. Broadcast errors
 * decide as docs/broadcast-channels.md says: ChannelNotRegistered / BadChannelId end the
 * broadcast, FeatureNotEnabled holds it (logged, shown on the broadcast, tried again every 5
 * minutes), CannotCreateChannelConfig ends it with `channel-limit`.
 */
export class BroadcastWorker {
  private readonly apps: AppChannelsCache;
  private readonly channels?: ApnsChannels;
  private readonly broadcaster?: ApnsBroadcaster;
  private readonly loop: Pump;

  constructor(
    private readonly ctx: AppContext,
    private readonly transports: Transports,
    private readonly options: { pollMs?: number; random?: () => number } = {},
  ) {
    this.apps = new AppChannelsCache(ctx);
    const pollMs = options.pollMs ?? 250;
    // A round that found steps goes again at once: the next steps of those broadcasts may be due.
    // No recovery: a step is claimed by naming its instance (PostgreSQL) and stays pending, so a
    // dead instance's step is free again once its lease ran out (claims.free in the claim).
    this.loop = new Pump(ctx.coordination.wakeUps, ctx.logger, { name: 'broadcast worker', pollMs, wakeOn: ['broadcasts-queued'], round: async () => (await this.drain()) > 0 });
    // A test double in place of the APNs client cannot manage channels: simulated then.
    if (transports.apns instanceof ApnsClient) {
      this.channels = new ApnsChannels(transports.apns, { clock: ctx.clock });
      this.broadcaster = new ApnsBroadcaster(transports.apns, { clock: ctx.clock });
    }
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Does every step due now (at most one per broadcast per round); returns how many were looked at. */
  async drain(): Promise<number> {
    const ops = await broadcastsRepository(this.ctx.db.sql).due(this.ctx.clock.now(), BATCH);
    await Promise.all(ops.map((op) => this.run(op)));
    return ops.length;
  }

  private async run(op: BroadcastOp): Promise<void> {
    const repos = this.ctx.db.sql;
    const row = await broadcastsRepository(repos).byId(op.broadcastId);
    const app = row && (await this.apps.of(row.appId));
    if (!row || !app) return this.save({ ...op, status: 'failed', reason: 'broadcast or app removed' });
    const creds: Creds = { apns: app.apns, fcm: app.fcm };
    if (op.kind === 'create_channel') return this.createChannel(op, row, creds);
    if (op.kind === 'delete_channel') return this.deleteChannel(op, row, creds);
    return this.send(op, row, creds);
  }

  private async createChannel(op: BroadcastOp, row: BroadcastRow, creds: Creds): Promise<void> {
    if (!creds.apns || !this.channels || row.environment === 'simulator') return this.fail(op, row, 'APNs credentials removed');
    const made = await this.channels.create(creds.apns, row.environment, row.storagePolicy);
    if (made.kind === 'created') {
      await this.ctx.db.write(async (tx) => {
        await broadcastsRepository(tx).setChannel(row.id, 'open', made.channelId, null);
        await broadcastsRepository(tx).setHeld(row.id, null);
        await broadcastsRepository(tx).saveOp({ ...op, status: 'done', reason: null, attempts: op.attempts + 1 }, this.ctx.clock.now());
      });
      return;
    }
    const half = this.decide(made, row);
    if (half.kind === 'later' || half.kind === 'held') return this.later(op, row, half);
    const reason = made.kind === 'channel-limit' ? 'channel-limit: Apple holds 10,000 channels of the app in this environment (CannotCreateChannelConfig)' : made.reason;
    return this.fail(op, row, half.kind === 'over' ? half.reason : reason);
  }

  private async deleteChannel(op: BroadcastOp, row: BroadcastRow, creds: Creds): Promise<void> {
    if (row.environment === 'simulator' || !row.channelId || row.channelState !== 'open') return this.closeChannel(op, row, null);
    if (!creds.apns || !this.channels) return this.save({ ...op, status: 'failed', reason: 'APNs credentials removed' });
    const removed = await this.channels.remove(creds.apns, row.environment, row.channelId);
    if (removed.kind === 'deleted' || removed.kind === 'channel-gone') return this.closeChannel(op, row, null);
    const half = this.decide(removed, row);
    if (half.kind === 'later' || half.kind === 'held') return this.later(op, row, half);
    return this.save({ ...op, status: 'failed', reason: removed.reason });
  }

  private async closeChannel(op: BroadcastOp, row: BroadcastRow, reason: string | null): Promise<void> {
    await this.ctx.db.write(async (tx) => {
      if (row.channelState === 'open') await broadcastsRepository(tx).setChannel(row.id, 'deleted', null, reason);
      await broadcastsRepository(tx).saveOp({ ...op, status: 'done', reason }, this.ctx.clock.now());
    });
  }

  /** An update or end: one request to the channel, one message to the topic; each half goes once. */
  private async send(op: BroadcastOp, row: BroadcastRow, creds: Creds): Promise<void> {
    const content = JSON.parse(op.content!) as LiveActivityContent;
    const [apns, fcm] = await Promise.all([
      op.apnsDone ? ({ kind: 'done' } as Half) : this.sendApns(row, creds, content),
      op.fcmDone ? ({ kind: 'done' } as Half) : this.sendFcm(row, creds, content),
    ]);
    if (apns.kind === 'over') return this.end(op, row, apns.reason);
    const next = { ...op, apnsDone: apns.kind === 'done', fcmDone: fcm.kind === 'done' };
    const waiting = [apns, fcm].find((h) => h.kind === 'held') ?? [apns, fcm].find((h) => h.kind === 'later');
    if (waiting && (waiting.kind === 'held' || waiting.kind === 'later')) return this.later(next, row, waiting);
    const failed = [apns, fcm].flatMap((h) => (h.kind === 'done' && h.failed ? [h.failed] : []));
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async (tx) => {
      await broadcastsRepository(tx).saveOp({ ...next, status: 'done', attempts: op.attempts + 1, reason: failed.join('; ') || null }, now);
      await broadcastsRepository(tx).countUpdateSent(row.id);
      if (row.heldReason) await broadcastsRepository(tx).setHeld(row.id, null);
      // The channel goes once the end's dismissal date has passed (until then devices may still show it).
      if (content.event === 'end') await broadcastsRepository(tx).queue({ broadcastId: row.id, appId: row.appId, kind: 'delete_channel', content: null, dueAt: Math.max(now, content.dismissalAt ?? now) }, now);
    });
  }

  private async sendApns(row: BroadcastRow, creds: Creds, content: LiveActivityContent): Promise<Half> {
    if (row.environment === 'simulator') return this.decideDevice(await this.transports.simulator.send(this.simulated('apns', row, content)));
    if (!row.channelId || row.channelState !== 'open') return { kind: 'done', failed: `apns: channel ${row.channelState}` };
    if (!creds.apns || !this.broadcaster) return { kind: 'done', failed: 'apns: credentials removed' };
    const now = this.ctx.clock.now();
    const outcome = await this.broadcaster.send({
      creds: creds.apns,
      environment: row.environment,
      channelId: row.channelId,
      priority: content.priority ?? 10,
      // No Message Stored takes only 0 (BadExpirationDate otherwise).
      expiration: row.storagePolicy === 0 ? 0 : Math.floor(now / 1000) + STORED_FOR_S,
      body: JSON.stringify(apnsRequest(content, creds.apns.bundleId).body),
    });
    return this.decide(outcome, row);
  }

  private async sendFcm(row: BroadcastRow, creds: Creds, content: LiveActivityContent): Promise<Half> {
    if (!creds.fcm) return this.decideDevice(await this.transports.simulator.send(this.simulated('fcm', row, content)));
    return this.decideDevice(await this.transports.fcm.send(fcmRequest(row.appId, creds.fcm, { topic: row.topic }, fcmMessage(content))));
  }

  private simulated(provider: 'apns' | 'fcm', row: BroadcastRow, content: LiveActivityContent) {
    const body = provider === 'apns' ? JSON.stringify(apnsRequest(content, '{bundleId}').body) : JSON.stringify({ message: { topic: row.topic, ...fcmMessage(content) } });
    return { appId: row.appId, provider, url: provider === 'apns' ? '/4/broadcasts/apps/{bundleId}' : '/v1/projects/{projectId}/messages:send', headers: {}, body };
  }

  /** What a broadcast or channel-management outcome means for the step (docs/broadcast-channels.md). */
  private decide(outcome: BroadcastOutcome, row: BroadcastRow): Half {
    switch (outcome.kind) {
      case 'delivered':
        return { kind: 'done' };
      case 'channel-gone':
        return { kind: 'over', reason: `channel-gone: ${outcome.reason}` };
      case 'feature-off':
        this.ctx.logger.error('broadcast held: Broadcast Capability is off', { appId: row.appId, broadcastId: row.id, help: FEATURE_OFF_HELP });
        return { kind: 'held', reason: FEATURE_OFF_HELP };
      case 'channel-limit':
        return { kind: 'over', reason: 'channel-limit' };
      default:
        return this.decideDevice(outcome);
    }
  }

  /** A device-push outcome (FCM, simulator, and the reasons broadcasts share with device pushes). */
  private decideDevice(outcome: Outcome | BroadcastOutcome): Half {
    if (outcome.kind === 'delivered') return { kind: 'done' };
    if (outcome.kind === 'retry') return { kind: 'later', reason: outcome.reason, ...(outcome.afterMs !== undefined ? { afterMs: outcome.afterMs } : {}), attempt: outcome.scope === undefined };
    if (outcome.kind === 'unreachable') return { kind: 'later', reason: outcome.reason, attempt: false };
    return { kind: 'done', failed: outcome.reason };
  }

  private async later(op: BroadcastOp, row: BroadcastRow, half: Extract<Half, { kind: 'later' | 'held' }>): Promise<void> {
    const now = this.ctx.clock.now();
    const attempts = op.attempts + (half.kind === 'later' && half.attempt ? 1 : 0);
    const delay = half.kind === 'held' ? FEATURE_OFF_RETRY_MS : retryDelay(attempts, half.afterMs, this.options.random ?? Math.random);
    await this.ctx.db.write(async (tx) => {
      if (half.kind === 'held') await broadcastsRepository(tx).setHeld(row.id, half.reason);
      if (half.kind === 'held' && !row.heldReason) await webhookEventsRepository(tx).emit(row.appId, 'broadcast.held', { broadcastId: row.id, reason: half.reason }, now);
      await broadcastsRepository(tx).saveOp({ ...op, attempts, nextAttemptAt: now + delay, reason: half.reason }, now);
    });
  }

  /** The channel is gone at Apple: the broadcast is over, its pending steps with it. */
  private async end(op: BroadcastOp, row: BroadcastRow, reason: string): Promise<void> {
    const now = this.ctx.clock.now();
    this.ctx.logger.warn('broadcast ended by APNs', { appId: row.appId, broadcastId: row.id, reason });
    await this.ctx.db.write(async (tx) => {
      if (await broadcastsRepository(tx).end(row.id, reason, now)) await webhookEventsRepository(tx).emit(row.appId, 'broadcast.ended', { broadcastId: row.id, endReason: reason }, now);
      await broadcastsRepository(tx).setChannel(row.id, 'deleted', null, reason);
      await broadcastsRepository(tx).saveOp({ ...op, status: 'failed', reason }, now);
      await broadcastsRepository(tx).failPending(row.id, reason, now);
    });
  }

  /** The channel could not be made: the broadcast ends with the reason. */
  private async fail(op: BroadcastOp, row: BroadcastRow, reason: string): Promise<void> {
    const now = this.ctx.clock.now();
    this.ctx.logger.warn('broadcast channel not created', { appId: row.appId, broadcastId: row.id, reason });
    await this.ctx.db.write(async (tx) => {
      if (await broadcastsRepository(tx).end(row.id, reason, now)) await webhookEventsRepository(tx).emit(row.appId, 'broadcast.ended', { broadcastId: row.id, endReason: reason }, now);
      await broadcastsRepository(tx).setChannel(row.id, 'failed', null, reason);
      await broadcastsRepository(tx).saveOp({ ...op, status: 'failed', reason }, now);
      await broadcastsRepository(tx).failPending(row.id, reason, now);
    });
  }

  private async save(op: BroadcastOp): Promise<void> {
    await this.ctx.db.write((tx) => broadcastsRepository(tx).saveOp(op, this.ctx.clock.now()));
  }
}
