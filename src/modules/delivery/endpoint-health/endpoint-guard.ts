import type { AppContext } from '../../../context';
import { channelDown, channelRecovered } from '../../webhooks/webhooks.causes';
import { endpointDownReason, endpointHold, endpointOf, type EndpointHealth, type EndpointHealthOptions, type EndpointKey } from './endpoint-health';
import type { DeliveryResult } from '../worker/delivery.types';
import { downHold } from '../holds/hold-kind';
import type { Sent } from '../worker/outcome-effects';
import type { ClaimedDelivery, Route } from '../worker/delivery.routing';
import type { Outcome } from '../providers/transport';
import { endpointHoldsRepository } from './endpoint-holds.repository';

type SendRoute = Extract<Route, { action: 'send' }>;

/** A send that went to a real provider's endpoint (not the simulator), and whether it was the endpoint's probe. */
export interface Gate {
  key: EndpointKey;
  probe: boolean;
}

/** Not sent: the endpoint is down (held) or asked to wait, or the token backs off (pending until then). */
export interface HeldBack {
  kind: 'held-back';
  result: DeliveryResult;
}

/**
 * The delivery worker's side of endpoint health (endpoint-health.ts): asks before each send whether
 * the endpoint lets it go, turns connection-level failures and the provider's "wait" answers into
 * outcomes that spend no attempt, releases one held delivery as the probe of a down endpoint, and
 * everything held for a endpoint once it answers again.
 */
export class EndpointGuard {
  readonly health: EndpointHealth;
  private readonly holds;
  /** Endpoints that answered again after being down, released after the next write of outcomes. */
  private readonly recovered: { key: EndpointKey; since: number }[] = [];
  /** Set while the worker stops: connections cut by our own shutdown say nothing about the provider. */
  stopping = false;
  /** channel.down events being written (the outcome path does not wait for them; the next write of outcomes does). */
  private events: Promise<void>[] = [];

  constructor(
    private readonly ctx: AppContext,
    private readonly random: () => number,
    options: EndpointHealthOptions = {},
  ) {
    this.health = ctx.endpointHealth;
    this.health.configure(options);
    this.holds = endpointHoldsRepository(ctx.db.sql);
    // Webhooks: channel.down when a endpoint goes down (channel.recovered: releaseRecovered).
    // Called from the worker's outcome path, which must not throw: a write that fails here (a full
    // disk) loses the event, never the delivery's outcome nor the process.
    this.health.onDown = (key, reason) => {
      const now = ctx.clock.now();
      const written = ctx.db.write((tx) => channelDown(tx, key, reason, now)).catch((e) => {
        ctx.logger.error('channel.down webhook event not written', { appId: key.appId, provider: key.provider, error: e instanceof Error ? e.message : String(e) });
      });
      this.events.push(written);
    };
  }

  /** At start: deliveries a previous process held for a down endpoint go again (health is not kept across restarts). */
  recover(now: number): Promise<number> {
    return this.holds.recover(now);
  }

  /** Releases one held delivery for each down endpoint whose probe is due. Returns how many. */
  async releaseProbes(now: number): Promise<number> {
    if (!this.health.anyDown()) return 0;
    let released = 0;
    for (const key of this.health.probesDue(now)) if (await this.holds.releaseProbe(key.appId, endpointHold(key), now)) released++;
    return released;
  }

  /** Just before a send: may it go now? A probe answers later: it is taken for every instance sharing the health. */
  admit(row: ClaimedDelivery, route: SendRoute): Gate | HeldBack | undefined | Promise<Gate | HeldBack> {
    if (route.transport === 'simulator') return undefined;
    const key = endpointOf(row.appId, route.request.provider, route.request.url);
    const now = this.ctx.clock.now();
    const admission = this.health.admit(key, tokenKey(row, route), now);
    const base = { id: row.id, attempts: row.attempts, provider: null, providerId: null, sentPayload: null };
    const held = (): HeldBack => ({ kind: 'held-back', result: { ...base, status: 'held', holdKind: downHold(key.provider), holdEndpoint: key.endpoint, nextAttemptAt: row.nextAttemptAt, reason: endpointDownReason(key) } });
    if (admission.go && admission.probe) return this.probe(key, now, held);
    if (admission.go) return { key, probe: false };
    if (admission.hold) return held();
    return { kind: 'held-back', result: { ...base, status: 'pending', holdKind: null, nextAttemptAt: admission.until, reason: `${key.provider} asked to wait` } };
  }

  /** The probe goes when this instance takes it; else (another took it, or the shared state is unreachable) the delivery is held. */
  private async probe(key: EndpointKey, now: number, held: () => HeldBack): Promise<Gate | HeldBack> {
    const taken = await Promise.resolve(this.health.takeProbe(key, now)).catch(() => false);
    return taken ? { key, probe: true } : held();
  }

  /** Any answer from the provider proves the endpoint reachable. */
  answered(gate: Gate, outcome: Outcome): void {
    const back = outcome.kind === 'delivered' ? this.health.delivered(gate.key) : this.health.answered(gate.key);
    if (back) this.recovered.push({ key: gate.key, since: back.since });
  }

  /**
   * No answer: not an attempt. Held when the endpoint is (now) down, else due again within a
   * second. `sent` is the result the worker would write for an attempt.
   */
  unreachable(gate: Gate | undefined, outcome: Extract<Outcome, { kind: 'unreachable' }>, row: ClaimedDelivery, sent: Sent): DeliveryResult {
    const result = { ...sent, attempts: row.attempts, reason: outcome.reason };
    if (gate && !this.stopping && !outcome.serverAlive && this.health.connectionFailed(gate.key, outcome.reason, gate.probe))
      return { ...result, status: 'held', holdKind: downHold(gate.key.provider), holdEndpoint: gate.key.endpoint, reason: endpointDownReason(gate.key) };
    return { ...result, status: 'pending', holdKind: null, nextAttemptAt: this.ctx.clock.now() + Math.floor(this.random() * 1000) };
  }

  /** The provider is overloaded or over the project's quota: not an attempt; the endpoint may slow down. */
  throttled(gate: Gate | undefined, outcome: Extract<Outcome, { kind: 'retry' }>, row: ClaimedDelivery, sent: Sent): DeliveryResult {
    const now = this.ctx.clock.now();
    const at = gate ? this.health.throttled(gate.key, outcome.reason, outcome.afterMs, this.random) : now + (outcome.afterMs ?? 1000);
    return { ...sent, attempts: row.attempts, status: 'pending', holdKind: null, nextAttemptAt: at, reason: outcome.reason };
  }

  /** A 429 about one device token: its other deliveries wait as long too. */
  tokenWait(row: ClaimedDelivery, route: SendRoute, until: number): void {
    this.health.tokenBackoff(tokenKey(row, route), until);
  }

  /** Waits for the channel.down events asked for so far (they never reject). */
  async eventsWritten(): Promise<void> {
    const events = this.events;
    this.events = [];
    await Promise.all(events);
  }

  /** After outcomes are written: everything held for endpoints that answered again is due now. */
  async releaseRecovered(): Promise<void> {
    if (this.recovered.length === 0) return;
    const now = this.ctx.clock.now();
    while (this.recovered.length > 0) {
      const { key, since } = this.recovered[0]!;
      // The release and its channel.recovered event in one transaction.
      const waited = await this.ctx.db.write(async (tx) => {
        const released = await endpointHoldsRepository(tx).release(key.appId, endpointHold(key), now);
        await channelRecovered(tx, key, { downSince: since, released }, now);
        return released;
      });
      this.recovered.shift();
      this.ctx.logger.info('delivery channel recovered', { ...key, downSeconds: Math.round((now - since) / 100) / 10, waited });
    }
  }
}

/** Per device token backoffs: the device and the request URL (which carries the APNs token). */
function tokenKey(row: ClaimedDelivery, route: SendRoute): string {
  return `${row.deviceId}|${route.request.url}`;
}
