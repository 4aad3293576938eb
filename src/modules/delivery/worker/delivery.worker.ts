import type { AppContext } from '../../../context';
import type { IsletMetrics } from '../../metrics/metrics';
import { DEFAULT_BACKOFF, type BackoffPolicy } from '../../../queue/backoff';
import { EndpointGuard, type Gate, type HeldBack } from '../endpoint-health/endpoint-guard';
import { forgetCredentials } from '../endpoint-health/endpoint-reset';
import type { EndpointHealthOptions } from '../endpoint-health/endpoint-health';
import { Pump } from '../../../queue/pump';
import { AppChannelsCache } from './app-channels';
import { DeliveryRouter, type AppChannels, type ClaimedDelivery, type Route } from './delivery.routing';
import { DeliverySender } from './delivery.sender';
import { unsentDecision, type Decision } from './outcome-effects';
import { OutcomeWriter } from './outcome-writer';
import { inlineStore, type OutboxStore } from '../outbox/outbox-store';
import type { Transports } from '../providers/transport';
import { deliveriesRepository } from './delivery.repository';

export interface WorkerOptions {
  /** Deliveries claimed per statement. */
  batchSize?: number;
  /** Sends in flight at once, all apps together. */
  maxInFlight?: number;
  /** Sends in flight at once for one app on one transport. */
  perChannel?: number;
  /** Real time between looks at the outbox when it is idle. */
  pollMs?: number;
  /** Outcomes written per transaction (at most). */
  flushSize?: number;
  /**
   * Claims the next batch while the last one is routed and its sends start (PostgreSQL: a claim
   * there takes longer than routing, and runs on another connection of the pool). SQLite claims
   * on its one connection, at once: off.
   */
  claimAhead?: boolean;
  backoff?: BackoffPolicy;
  /** When an endpoint counts as down and how it is probed (endpoint-health/endpoint-health.ts). */
  health?: EndpointHealthOptions;
  /** Jitter source, [0, 1). */
  random?: () => number;
  /** Where claims and outcomes are written: this thread's connection unless given (outbox-thread.client.ts). */
  store?: OutboxStore;
}

/**
 * Drains the outbox: claims due deliveries in batches (the claim room), routes each to its
 * transport (delivery.routing.ts), sends with bounded concurrency per app and transport, decides
 * what each outcome means (outcome-effects.ts) and hands it to the recording (outcome-writer.ts).
 * `start` runs it in the background on the pump loop; tests call `drain` with a fake clock instead.
 * @example const worker = new DeliveryWorker(ctx, transports, metrics); worker.start(); … await worker.stop();
 */
export class DeliveryWorker {
  private readonly repo;
  private readonly router = new DeliveryRouter();
  private readonly channels: AppChannelsCache;
  private readonly sender: DeliverySender;
  private readonly options: Required<Omit<WorkerOptions, 'store'>>;
  private readonly store: OutboxStore;
  private readonly writer: OutcomeWriter;
  private readonly loop: Pump;
  private readonly guard: EndpointGuard;
  /** A claim failed (it may have committed all the same), or its rows could not be routed: see claimBatch. */
  private claimUncertain = false;
  private running: Promise<number> | undefined;
  private offCredentials: (() => void) | undefined;
  private stopping = false;
  /** Whether parked deliveries may exist, so the resume check runs only then. */
  private parked = true;

  constructor(
    private readonly ctx: AppContext,
    transports: Transports,
    metrics: IsletMetrics,
    options: WorkerOptions = {},
  ) {
    this.repo = deliveriesRepository(ctx.db.sql);
    this.channels = new AppChannelsCache(ctx);
    const { store, ...rest } = options;
    this.store = store ?? inlineStore(this.repo);
    this.options = {
      // 200, not more: routing and starting the sends of a batch (and, without the outbox thread,
      // claiming and recording it) holds the event loop, which API requests then wait for.
      batchSize: 200,
      maxInFlight: 2000,
      perChannel: 1000,
      pollMs: 100,
      flushSize: 200,
      claimAhead: ctx.config.database.url !== undefined,
      backoff: DEFAULT_BACKOFF,
      health: {},
      random: Math.random,
      ...rest,
    };
    this.guard = new EndpointGuard(ctx, this.options.random, this.options.health);
    this.writer = new OutcomeWriter(ctx, metrics, this.store, this.options.flushSize, () => this.afterWrite());
    const { perChannel, random, backoff } = this.options;
    this.sender = new DeliverySender(ctx, transports, metrics, this.guard, { perChannel, random, backoff }, (row, decision) => this.decided(row, decision));
    this.loop = new Pump(ctx.coordination.wakeUps, ctx.logger, {
      name: 'delivery worker',
      pollMs: this.options.pollMs,
      // New work starts at once; the poll only covers retries coming due.
      wakeOn: ['deliveries-queued'],
      recover: async () => {
        const { instance } = ctx.coordination;
        const recovered = await instance.recover('deliveries', () => this.repo.recoverSending(ctx.clock.now()));
        if (recovered > 0) ctx.logger.warn('deliveries interrupted by the last stop will be sent again', { count: recovered });
        const unheld = await instance.recover('endpoint holds', () => this.guard.recover(ctx.clock.now()));
        if (unheld > 0) ctx.logger.info('deliveries held for a down channel before the last stop will be tried again', { count: unheld });
      },
      round: async () => void (await this.drain()),
      // A full disk is logged once by the storage health, not at every poll.
      quiet: (e) => ctx.db.storage.failed(e),
      failing: () => this.writer.failing,
    });
  }

  /**
   * Puts deliveries a previous process left in `sending`, and those held for a down endpoint, back
   * in the queue. The server awaits it before it listens, so a failure stops the start-up with its
   * message; `start` runs it too (done once, retried after a failure).
   */
  recover(): Promise<void> {
    return this.loop.recover();
  }

  /** Recovers (see `recover`), then works until `stop`. */
  start(): void {
    if (this.loop.started) return;
    // Changed through any instance: opened credentials and what is known of the old endpoints go,
    // and deliveries another instance parked on the channel may go now (it may have died since).
    this.offCredentials = this.ctx.coordination.wakeUps.on('credentials-changed', (subject) => {
      this.channels.forget();
      forgetCredentials(this.ctx, subject);
      this.parked = true;
      this.loop.wake();
    });
    this.loop.start();
  }

  /** Cuts the idle wait short: new deliveries were queued. */
  wake(): void {
    this.loop.wake();
  }

  /**
   * Processes everything due now, including what becomes due while it runs, and resolves with the
   * number of deliveries it claimed once every outcome is written.
   */
  drain(): Promise<number> {
    this.running ??= this.drainAll().finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Stops claiming, waits for sends in flight (the caller closes the transports to cut them short),
   * writes their outcomes and gives back anything claimed but not finished.
   */
  async stop(): Promise<void> {
    this.halt();
    this.offCredentials?.();
    await this.loop.stop();
    await this.running;
    await this.writer.flushAll(true);
    const left = [...this.writer.claimed];
    if (left.length > 0) await this.repo.release(left, this.ctx.clock.now());
    this.writer.claimed.clear();
    await this.store.close();
  }

  /** Stops claiming; sends in flight go on. */
  halt(): void {
    this.stopping = true;
    this.guard.stopping = true;
    this.loop.wake();
  }

  /** Waits up to `ms` of real time for the sends in flight to end. */
  async quiesce(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.sender.sending > 0 && Date.now() < deadline) await Promise.race([this.sender.nextSettle(), new Promise((r) => setTimeout(r, 50))]);
    return this.sender.sending === 0;
  }

  private async drainAll(): Promise<number> {
    let claimedTotal = 0;
    const batch = Math.max(1, Math.min(this.options.batchSize, this.options.maxInFlight));
    const claimed = this.writer.claimed;
    if (this.parked) await this.releaseResumed();
    await this.guard.releaseProbes(this.ctx.clock.now());
    /** The claim running while the last batch is dispatched (claimAhead). */
    let ahead: Promise<ClaimedDelivery[]> | undefined;
    for (;;) {
      // Claim a whole batch or nothing while sends are in flight: a claim per finished send would
      // turn one statement per batch into one per delivery. Room counts every claim whose outcome
      // is not written yet, not only sends in flight: those are what goes twice after a kill -9, and
      // when writing lags sending (PostgreSQL under load) they would otherwise grow without bound.
      const room = this.options.maxInFlight - claimed.size;
      // While outcomes cannot be written (disk full), nothing more is claimed: they would pile up in memory.
      const mayClaim = !this.stopping && !this.writer.failing && (room >= batch || claimed.size === 0);
      // Sends in flight go on while the claim runs (on the outbox thread, when there is one).
      const rows = ahead ? await ahead : mayClaim ? await this.claimBatch(batch) : [];
      ahead = undefined;
      claimedTotal += rows.length;
      if (rows.length > 0) {
        // A full batch says more is due: the next claim starts now, with room for both batches.
        if (this.options.claimAhead && rows.length === batch && !this.stopping && !this.writer.failing && room - rows.length >= batch) {
          ahead = this.claimBatch(batch);
          ahead.catch(() => {});
        }
        try {
          await this.dispatch(rows);
        } catch (e) {
          // The claim ahead ends first; its rows, never dispatched, go back before the next claim.
          if (ahead) await ahead.then(() => (this.claimUncertain = true), () => {});
          throw e;
        }
        // Requests waiting on the event loop go first: with a transport that answers at once (the
        // simulator) a backlog would otherwise be worked off in one block, stalling the API.
        await new Promise((resolve) => setImmediate(resolve));
      }
      this.writer.flushIfDue();
      if (rows.length > 0 && this.options.maxInFlight - claimed.size >= batch) continue;
      if (this.sender.sending > 0) {
        await this.sender.nextSettle();
        continue;
      }
      // Nothing in flight and nothing claimed: write what is left; stop unless that made more due.
      const wrote = await this.writer.flushAll();
      if (rows.length === 0 && (wrote === 0 || this.stopping)) break;
    }
    return claimedTotal;
  }

  /**
   * One claim. When a claim fails its rows may still be claimed (the statement committed and the
   * answer was lost with the connection): before the next claim, whatever this process claimed and
   * does not hold goes back to the queue, or it would stay `sending` until this process ends.
   */
  private async claimBatch(batch: number): Promise<ClaimedDelivery[]> {
    if (this.claimUncertain) {
      const released = await this.repo.releaseUnheld([...this.writer.claimed], this.ctx.clock.now());
      if (released > 0) this.ctx.logger.warn('deliveries of a claim whose answer was lost will be sent again', { count: released });
      this.claimUncertain = false;
    }
    try {
      return await this.store.claim(this.ctx.clock.now(), batch);
    } catch (e) {
      this.claimUncertain = true;
      throw e;
    }
  }

  private async dispatch(rows: ClaimedDelivery[]): Promise<void> {
    const channels = new Map<string, AppChannels | null>();
    try {
      const withWeb = new Set(rows.filter((row) => row.platform === 'web').map((row) => row.appId));
      for (const row of rows) if (!channels.has(row.appId)) channels.set(row.appId, await this.channels.of(row.appId, withWeb.has(row.appId)));
    } catch (e) {
      // The database went away after the claim: these rows are not held, so the next claim gives them back.
      this.claimUncertain = true;
      throw e;
    }
    for (const row of rows) this.writer.claimed.add(row.id);
    for (const row of rows) {
      const app = channels.get(row.appId)!;
      const route: Route = app ? this.router.route(row, app) : { action: 'drop', reason: 'app removed' };
      if (route.action === 'send') this.sender.send(row, route, app!);
      else this.decided(row, unsentDecision(row, route));
    }
  }

  private decided(row: ClaimedDelivery, decision: Decision): void {
    // Parked on a paused channel: the resume check runs again.
    if (decision.result.holdKind === 'apns_paused' || decision.result.holdKind === 'fcm_paused') this.parked = true;
    this.writer.add(row, decision);
  }

  /** Once outcomes are written: endpoints that answered again release what they held; listeners hear of the change. */
  private async afterWrite(): Promise<void> {
    try {
      await this.guard.releaseRecovered();
    } catch (e) {
      this.ctx.logger.error('releasing deliveries of a recovered channel failed', { error: e instanceof Error ? e.message : String(e) });
    }
    await this.guard.eventsWritten();
    try {
      this.ctx.coordination.wakeUps.notify('deliveries-changed');
    } catch (e) {
      this.ctx.logger.error('a listener of delivery changes failed', { error: e instanceof Error ? e.message : String(e) });
    }
  }

  private async releaseResumed(): Promise<void> {
    const released = await this.repo.releaseResumed(this.ctx.clock.now());
    if (released > 0) this.ctx.logger.info('delivery channel resumed', { released });
    this.parked = await this.repo.hasParked();
  }
}
