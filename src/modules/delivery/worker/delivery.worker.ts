import type { AppContext } from '../../../context';
import type { StorageStatus } from '../../../db/store';
import { appsService } from '../../apps/apps.service';
import type { DeliveryOutcomeLabel, IsletMetrics } from '../../metrics/metrics';
import { refusalReason } from '../../tokens/tokens.service';
import { DEFAULT_BACKOFF, retryDelay, type BackoffPolicy } from './backoff';
import { EndpointGuard, type Gate, type HeldBack } from '../endpoint-health/endpoint-guard';
import { credentialsReset, forgetCredentials } from '../endpoint-health/endpoint-reset';
import type { EndpointHealthOptions } from '../endpoint-health/endpoint-health';
import { Semaphore } from './concurrency';
import type { DeliveryResult } from './delivery.repository';
import { DeliveryRouter, parkedReason, recordedRequest, type AppChannels, type ClaimedDelivery, type Route } from './delivery.routing';
import { inlineStore, type OutboxStore } from '../outbox/outbox-store';
import type { Outcome, Transports } from '../providers/transport';

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
  backoff?: BackoffPolicy;
  /** When an endpoint counts as down and how it is probed (endpoint-health/endpoint-health.ts). */
  health?: EndpointHealthOptions;
  /** Jitter source, [0, 1). */
  random?: () => number;
  /** Where claims and outcomes are written: this thread's connection unless given (outbox-thread.ts). */
  store?: OutboxStore;
}

type SendRoute = Extract<Route, { action: 'send' }>;

/**
 * Drains the outbox: claims due deliveries in batches, routes each to its transport, sends with
 * bounded concurrency per app and transport, and writes outcomes back in batched transactions.
 * `start` runs it in the background; tests call `drain` with a fake clock instead.
 * @example const worker = new DeliveryWorker(ctx, transports, metrics); worker.start(); … await worker.stop();
 */
export class DeliveryWorker {
  private readonly repo;
  private readonly apps;
  private readonly router = new DeliveryRouter();
  private readonly options: Required<Omit<WorkerOptions, 'store'>>;
  private readonly store: OutboxStore;
  private readonly limiters = new Map<string, Semaphore>();
  /** Opened credentials by their sealed value (a change seals anew); emptied when any app's change. */
  private readonly credentials = new Map<string, unknown>();
  /**
   * The body each recent message records (`messages.sent_body`; null: none yet), so deliveries
   * that sent the same one record their request without it.
   */
  private readonly messageBodies = new Map<number, string | null>();
  /** Claimed and not yet written back. */
  private readonly claimed = new Set<number>();
  /** A claim failed (it may have committed all the same), or its rows could not be routed: see claimBatch. */
  private claimUncertain = false;
  private results: DeliveryResult[] = [];
  /** Outcomes counted since the last write, by their labels (see count()). */
  private readonly tallies = new Map<string, { labels: { app: string; provider: string; kind: string; outcome: DeliveryOutcomeLabel }; n: number }>();
  /** The write of outcomes under way (one at a time). */
  private writing: Promise<number> | undefined;
  private inFlight = 0;
  /** Real time of the last write of outcomes. */
  private flushedAt = performance.now();
  private settled: (() => void) | undefined;
  private running: Promise<number> | undefined;
  private loop: Promise<void> | undefined;
  private recovery: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private sleeper: { timer: ReturnType<typeof setTimeout>; resolve: () => void } | undefined;
  private stopping = false;
  /** A wake-up came while no wait was under way. */
  private wokenMeanwhile = false;
  /** Whether parked deliveries may exist, so the resume check runs only then. */
  private parked = true;
  private readonly guard: EndpointGuard;
  private readonly storage: StorageStatus;
  /** Writes of outcomes that failed in a row: no claiming meanwhile, and each retry waits longer. */
  private flushFailures = 0;
  private flushRetryAt = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly transports: Transports,
    private readonly metrics: IsletMetrics,
    options: WorkerOptions = {},
  ) {
    this.repo = ctx.db.repos.deliveries;
    this.apps = { repo: ctx.db.repos.apps, service: appsService(ctx, credentialsReset(ctx)) };
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
      backoff: DEFAULT_BACKOFF,
      health: {},
      random: Math.random,
      ...rest,
    };
    this.guard = new EndpointGuard(ctx, this.options.random, this.options.health);
    this.storage = ctx.db.storage;
  }

  /**
   * Puts deliveries a previous process left in `sending`, and those held for a down endpoint, back
   * in the queue. The server awaits it before it listens, so a failure stops the start-up with its
   * message; `start` runs it too (done once, retried after a failure).
   */
  recover(): Promise<void> {
    this.recovery ??= (async () => {
      const { instance } = this.ctx.coordination;
      const recovered = await instance.recover('deliveries', () => this.repo.recoverSending(this.ctx.clock.now()));
      if (recovered > 0) this.ctx.logger.warn('deliveries interrupted by the last stop will be sent again', { count: recovered });
      const unheld = await instance.recover('endpoint holds', () => this.guard.recover(this.ctx.clock.now()));
      if (unheld > 0) this.ctx.logger.info('deliveries held for a down channel before the last stop will be tried again', { count: unheld });
    })().catch((e) => {
      this.recovery = undefined;
      throw e;
    });
    return this.recovery;
  }

  /** Recovers (see `recover`), then works until `stop`. */
  start(): void {
    if (this.loop) return;
    // New work starts at once; the poll only covers retries coming due.
    const { wakeUps } = this.ctx.coordination;
    const offQueued = wakeUps.on('deliveries-queued', () => this.wake());
    // Changed through any instance: opened credentials and what is known of the old endpoints go,
    // and deliveries another instance parked on the channel may go now (it may have died since).
    const offCredentials = wakeUps.on('credentials-changed', (subject) => {
      this.credentials.clear();
      forgetCredentials(this.ctx, subject);
      this.parked = true;
      this.wake();
    });
    this.unsubscribe = () => (offQueued(), offCredentials());
    this.loop = (async () => {
      while (!this.stopping) {
        let storageFailed = false;
        try {
          // Inside the try: a failed recovery is logged and tried again at the next poll, never a
          // rejection nobody awaits until `stop`.
          await this.recover();
          await this.drain();
        } catch (e) {
          // A full disk is logged once by the storage health, not at every poll.
          storageFailed = this.storage.failed(e);
          if (!storageFailed) this.ctx.logger.error('delivery worker failed', { error: e instanceof Error ? e.message : String(e) });
        }
        const failing = storageFailed || this.flushFailures > 0;
        // A wake-up heard while draining skips the poll's wait, never a failure's.
        if (failing || !this.wokenMeanwhile) await this.sleep(failing ? 1000 : this.options.pollMs);
        this.wokenMeanwhile = false;
      }
    })();
  }

  /** Cuts the idle wait short: new deliveries were queued. */
  wake(): void {
    // Heard while draining (after its last claim, perhaps): the next wait is skipped, not slept through.
    if (this.sleeper) this.sleeper.resolve();
    else this.wokenMeanwhile = true;
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
    this.unsubscribe?.();
    await this.loop;
    await this.running;
    this.flushRetryAt = 0;
    await this.flushAll();
    const left = [...this.claimed];
    if (left.length > 0) await this.repo.release(left, this.ctx.clock.now());
    this.claimed.clear();
    await this.store.close();
  }

  /** Stops claiming; sends in flight go on. */
  halt(): void {
    this.stopping = true;
    this.guard.stopping = true;
    this.wake();
  }

  /** Waits up to `ms` of real time for the sends in flight to end. */
  async quiesce(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.inFlight > 0 && Date.now() < deadline) await Promise.race([this.nextSettle(), new Promise((r) => setTimeout(r, 50))]);
    return this.inFlight === 0;
  }

  private async drainAll(): Promise<number> {
    let claimedTotal = 0;
    const batch = Math.max(1, Math.min(this.options.batchSize, this.options.maxInFlight));
    if (this.parked) await this.releaseResumed();
    await this.guard.releaseProbes(this.ctx.clock.now());
    for (;;) {
      // Claim a whole batch or nothing while sends are in flight: a claim per finished send would
      // turn one statement per batch into one per delivery. Room counts every claim whose outcome
      // is not written yet, not only sends in flight: those are what goes twice after a kill -9, and
      // when writing lags sending (PostgreSQL under load) they would otherwise grow without bound.
      const room = this.options.maxInFlight - this.claimed.size;
      // While outcomes cannot be written (disk full), nothing more is claimed: they would pile up in memory.
      const mayClaim = !this.stopping && this.flushFailures === 0 && (room >= batch || this.claimed.size === 0);
      // Sends in flight go on while the claim runs (on the outbox thread, when there is one).
      const rows = mayClaim ? await this.claimBatch(batch) : [];
      claimedTotal += rows.length;
      if (rows.length > 0) {
        await this.dispatch(rows);
        // Requests waiting on the event loop go first: with a transport that answers at once (the
        // simulator) a backlog would otherwise be worked off in one block, stalling the API.
        await new Promise((resolve) => setImmediate(resolve));
      }
      // Big batches for throughput, but a trickle is written within a moment too (the console shows it).
      if (this.results.length >= this.options.flushSize || (this.results.length > 0 && performance.now() - this.flushedAt > 200)) void this.flush();
      if (rows.length > 0 && this.options.maxInFlight - this.claimed.size >= batch) continue;
      if (this.inFlight > 0) {
        await this.nextSettle();
        continue;
      }
      // Nothing in flight and nothing claimed: write what is left; stop unless that made more due.
      const wrote = await this.flushAll();
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
      const released = await this.repo.releaseUnheld([...this.claimed], this.ctx.clock.now());
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
      for (const row of rows) if (!channels.has(row.appId)) channels.set(row.appId, await this.channels(row.appId));
    } catch (e) {
      // The database went away after the claim: these rows are not held, so the next claim gives them back.
      this.claimUncertain = true;
      throw e;
    }
    for (const row of rows) this.claimed.add(row.id);
    for (const row of rows) {
      const app = channels.get(row.appId)!;
      const route: Route = app ? this.router.route(row, app) : { action: 'drop', reason: 'app removed' };
      if (route.action === 'send') this.send(row, route, app!);
      else this.settle(row, route);
    }
  }

  private send(row: ClaimedDelivery, route: SendRoute, app: AppChannels): void {
    this.inFlight++;
    const key = `${row.appId}:${route.transport}`;
    let limiter = this.limiters.get(key);
    if (!limiter) this.limiters.set(key, (limiter = new Semaphore(this.options.perChannel)));
    const transport = this.transports[route.transport];
    let gate: Gate | undefined;
    limiter
      .run(async (): Promise<Outcome | HeldBack> => {
        // Asked at the moment of sending: the channel may have gone down while this one queued.
        const admitted = await this.guard.admit(row, route);
        if (admitted && 'kind' in admitted) return admitted;
        gate = admitted;
        const started = performance.now();
        const outcome = await transport.send(route.request).catch(
          (e: unknown): Outcome => ({ kind: 'retry', reason: `internal error: ${e instanceof Error ? e.message : String(e)}` }),
        );
        this.metrics.providerSeconds.observe({ provider: route.transport }, (performance.now() - started) / 1000);
        return outcome;
      })
      .then((outcome) => {
        if (outcome.kind === 'held-back') {
          this.count(row, route.transport, 'held');
          this.results.push(outcome.result);
        } else this.results.push(this.resultOf(row, route, app, outcome, gate));
      })
      .catch((e: unknown) => {
        // A bug or a failing write while deciding the outcome: the delivery stays claimed and goes
        // back to the queue at stop or the next start (at least once); the worker and process go on.
        this.ctx.logger.error('deciding a delivery outcome failed', { id: row.id, error: e instanceof Error ? e.message : String(e) });
      })
      .finally(() => {
        this.inFlight--;
        this.settled?.();
      });
  }

  /** A delivery decided without sending: dropped, failed, held or parked. */
  private settle(row: ClaimedDelivery, route: Exclude<Route, SendRoute>): void {
    const base = { id: row.id, attempts: row.attempts, nextAttemptAt: row.nextAttemptAt, provider: null, providerId: null, sentPayload: null };
    switch (route.action) {
      case 'hold':
        this.count(row, 'apns', 'held');
        this.results.push({ ...base, status: 'held', reason: route.reason, holdFor: { activityId: row.activityId ?? '', deviceId: row.deviceId } });
        return;
      case 'park':
        this.parked = true;
        this.count(row, route.provider, 'held');
        this.results.push({ ...base, status: 'held', reason: parkedReason(route.provider) });
        return;
      case 'drop':
        this.count(row, 'none', 'dropped');
        this.results.push({ ...base, status: 'dropped', reason: route.reason });
        return;
      case 'fail':
        this.count(row, 'none', 'failed');
        this.results.push({ ...base, status: 'failed', reason: route.reason });
    }
  }

  private resultOf(row: ClaimedDelivery, route: SendRoute, app: AppChannels, outcome: Outcome, gate: Gate | undefined): DeliveryResult {
    const now = this.ctx.clock.now();
    const sent = {
      id: row.id,
      attempts: row.attempts + 1,
      nextAttemptAt: row.nextAttemptAt,
      provider: route.transport,
      providerId: null,
      ...this.recorded(row, route),
    };
    const provider = route.request.provider;
    if (gate && outcome.kind !== 'unreachable') this.guard.answered(gate, outcome);
    switch (outcome.kind) {
      case 'delivered':
        this.count(row, route.transport, 'delivered');
        return { ...sent, status: 'delivered', providerId: outcome.providerId ?? null, reason: null };
      case 'unreachable':
        this.count(row, route.transport, 'unreachable');
        return this.guard.unreachable(gate, outcome, row, sent);
      case 'retry': {
        if (outcome.scope === 'channel') {
          this.count(row, route.transport, 'retry');
          return this.guard.throttled(gate, outcome, row, sent);
        }
        if (sent.attempts >= this.options.backoff.maxAttempts) {
          this.count(row, route.transport, 'failed');
          return { ...sent, status: 'failed', reason: `gave up after ${sent.attempts} attempts: ${outcome.reason}` };
        }
        this.count(row, route.transport, 'retry');
        const delay = retryDelay(sent.attempts, outcome.afterMs, this.options.random, this.options.backoff);
        if (outcome.scope === 'token') this.guard.tokenWait(row, route, now + delay);
        return { ...sent, status: 'pending', nextAttemptAt: now + delay, reason: outcome.reason };
      }
      case 'drop-token': {
        this.count(row, route.transport, 'dropped');
        const reason = refusalReason(outcome.reason, route.environment);
        const invalidateToken = row.tokenId === null ? undefined : { tokenId: row.tokenId, reason, since: outcome.since };
        return { ...sent, status: 'dropped', reason, invalidateToken };
      }
      case 'pause-channel':
        // Not the message's fault: the attempt is not counted, and it goes out once the channel resumes.
        this.parked = true;
        this.count(row, route.transport, 'paused');
        return {
          ...sent,
          attempts: row.attempts,
          status: 'held',
          reason: parkedReason(provider),
          pauseChannel: { appId: row.appId, provider, reason: outcome.reason, sealed: provider === 'apns' ? app.apnsSealed : app.fcmSealed },
        };
      case 'failed':
        this.count(row, route.transport, 'failed');
        return { ...sent, status: 'failed', reason: outcome.reason };
    }
  }

  /**
   * What a delivery records of its request: the first delivery of a message records the body on
   * the message too (written with its outcome, so before any that leave it out); later ones that
   * sent the same body leave it out of their own record. APNs bodies only: an FCM body names the
   * device's registration token (message.token), which the message must not keep.
   */
  private recorded(row: ClaimedDelivery, route: SendRoute): Pick<DeliveryResult, 'sentPayload' | 'messageBody'> {
    if (route.request.provider !== 'apns') return { sentPayload: recordedRequest(route.request) };
    let known = this.messageBodies.get(row.messageId);
    if (known === undefined) {
      // A fan-out's batches share a few messages; the map stays small.
      if (this.messageBodies.size >= 256) this.messageBodies.delete(this.messageBodies.keys().next().value!);
      // As claimed: written by a delivery of an earlier batch or process, or not yet.
      known = row.sentBody;
      this.messageBodies.set(row.messageId, known);
    }
    const { body } = route.request;
    if (known === body) return { sentPayload: recordedRequest(route.request, false) };
    if (known !== null) return { sentPayload: recordedRequest(route.request) };
    this.messageBodies.set(row.messageId, body);
    return { sentPayload: recordedRequest(route.request), messageBody: { messageId: row.messageId, body } };
  }

  /**
   * Starts writing the outcomes gathered so far, unless a write is under way (then the next one
   * takes them). Resolves with the number written; never rejects.
   */
  private flush(): Promise<number> {
    if (this.writing) return this.writing;
    const writing = this.write().finally(() => {
      if (this.writing === writing) this.writing = undefined;
    });
    return (this.writing = writing);
  }

  /** Waits for the write under way, then writes whatever is left. */
  private async flushAll(): Promise<number> {
    let written = 0;
    while (this.writing) written += await this.writing;
    return written + (await this.flush());
  }

  /** Writes the outcomes gathered so far; on a database error they are kept for the next try. */
  private async write(): Promise<number> {
    this.publishCounts();
    if (this.results.length === 0 || performance.now() < this.flushRetryAt) return 0;
    const batch = this.results;
    this.results = [];
    this.flushedAt = performance.now();
    let recorded;
    try {
      recorded = await this.store.record(batch, this.ctx.clock.now());
    } catch (e) {
      this.results = batch.concat(this.results);
      this.flushFailures++;
      this.flushRetryAt = performance.now() + Math.min(5000, 250 * 2 ** Math.min(this.flushFailures - 1, 5));
      if (!this.storage.failed(e) || this.flushFailures === 1)
        this.ctx.logger.error('writing delivery outcomes failed; kept to write again', { error: e instanceof Error ? e.message : String(e), count: this.results.length });
      return 0;
    }
    for (const p of recorded.paused)
      this.ctx.logger.warn('delivery channel paused until its credentials change', { appId: p.appId, provider: p.provider, reason: p.reason });
    for (const s of recorded.superseded) this.metrics.deliveries.inc({ app: s.appId, provider: s.provider ?? 'none', kind: 'la_update', outcome: 'superseded' });
    this.flushFailures = 0;
    this.storage.succeeded();
    for (const r of batch) this.claimed.delete(r.id);
    await this.releaseRecovered();
    await this.guard.eventsWritten();
    try {
      this.ctx.coordination.wakeUps.notify('deliveries-changed');
    } catch (e) {
      this.ctx.logger.error('a listener of delivery changes failed', { error: e instanceof Error ? e.message : String(e) });
    }
    return batch.length;
  }

  private async releaseRecovered(): Promise<void> {
    try {
      await this.guard.releaseRecovered();
    } catch (e) {
      this.ctx.logger.error('releasing deliveries of a recovered channel failed', { error: e instanceof Error ? e.message : String(e) });
    }
  }

  private async releaseResumed(): Promise<void> {
    const released = await this.repo.releaseResumed(this.ctx.clock.now());
    if (released > 0) this.ctx.logger.info('delivery channel resumed', { released });
    this.parked = await this.repo.hasParked();
  }

  /** The app's credentials, decrypted once per distinct sealed value. */
  private async channels(appId: string): Promise<AppChannels | null> {
    const row = await this.apps.repo.find(appId);
    if (!row) return null;
    const open = <T>(sealed: string | null, read: () => T | undefined): T | undefined => {
      if (!sealed) return undefined;
      if (!this.credentials.has(sealed)) this.credentials.set(sealed, read());
      return this.credentials.get(sealed) as T;
    };
    return {
      apns: open(row.apnsSealed, () => this.apps.service.apns(row)),
      fcm: open(row.fcmSealed, () => this.apps.service.fcm(row)),
      apnsSealed: row.apnsSealed,
      fcmSealed: row.fcmSealed,
      apnsPausedReason: row.apnsPausedReason,
      fcmPausedReason: row.fcmPausedReason,
    };
  }

  /**
   * Counted here and added to islet_deliveries_total with each write of outcomes (at most 200 ms
   * later): one labelled increment per kind of outcome and batch instead of one per delivery.
   */
  private count(row: ClaimedDelivery, provider: string, outcome: DeliveryOutcomeLabel): void {
    const key = `${row.appId}\n${provider}\n${row.kind}\n${outcome}`;
    const tally = this.tallies.get(key);
    if (tally) tally.n++;
    else this.tallies.set(key, { labels: { app: row.appId, provider, kind: row.kind, outcome }, n: 1 });
  }

  private publishCounts(): void {
    for (const { labels, n } of this.tallies.values()) this.metrics.deliveries.inc(labels, n);
    this.tallies.clear();
  }

  private nextSettle(): Promise<void> {
    return new Promise((resolve) => {
      const previous = this.settled;
      this.settled = () => {
        this.settled = undefined;
        previous?.();
        resolve();
      };
    });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.sleeper = undefined;
        resolve();
      }, ms);
      this.sleeper = {
        timer,
        resolve: () => {
          clearTimeout(timer);
          this.sleeper = undefined;
          resolve();
        },
      };
    });
  }
}
