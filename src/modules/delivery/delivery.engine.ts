import type { AppContext } from '../../context';
import { ApnsClient } from './providers/apns/apns.client';
import { DeliveryWorker, type WorkerOptions } from './worker/delivery.worker';
import { inlineStore } from './outbox/outbox-store';
import { OutboxThread } from './outbox/outbox-thread.client';
import { FcmSender } from './providers/fcm/fcm.sender';
import { SimulatorTransport } from './providers/simulator.transport';
import { WebPushSender } from './providers/webpush/webpush.sender';
import { WebPushTransport } from './providers/webpush/webpush.transport';
import type { Transports } from './providers/transport';
import { deliveriesRepository } from './worker/delivery.repository';
import { quietHoldsConsumer } from './holds/quiet-holds';

export interface DeliveryEngineOptions extends WorkerOptions {
  /** Replace a transport (tests, benchmarks); the others are the real ones. */
  transports?: Partial<Transports>;
  /** Real time `stop` lets sends in flight finish before closing connections. */
  stopTimeoutMs?: number;
  /**
   * Claim and record deliveries on a worker thread of their own (outbox-thread.client.ts), so this
   * thread only drives HTTP/2 and the API. The server sets it; a database in memory never has one.
   */
  outboxThread?: boolean;
}

export interface DeliveryEngine {
  worker: DeliveryWorker;
  transports: Transports;
  /** Puts back what a stopped process left in flight; the server awaits it before it listens. */
  recover(): Promise<void>;
  /** Recovers interrupted deliveries (again, if `recover` failed) and starts draining the outbox in the background. */
  start(): void;
  /** Processes everything due now (tests drive this with a fake clock instead of `start`). */
  drain(): Promise<number>;
  /** Stops claiming, lets sends in flight finish (up to stopTimeoutMs), records them, closes connections. */
  stop(): Promise<void>;
}

/**
 * The delivery side of Islet: worker and transports (APNs, FCM, Web Push, simulator). The server starts it
 * after migrations and stops it before the database closes; createApp never does, so tests of other
 * modules get no background work.
 * @example const engine = createDeliveryEngine(ctx); engine.start(); … await engine.stop();
 */
export function createDeliveryEngine(ctx: AppContext, options: DeliveryEngineOptions = {}): DeliveryEngine {
  const { transports: overrides, stopTimeoutMs = 10_000, outboxThread = false, ...workerOptions } = options;
  const { path, max_size_mb: maxSizeMb } = ctx.config.database;
  if (outboxThread && path !== ':memory:')
    workerOptions.store ??= new OutboxThread(inlineStore(deliveriesRepository(ctx.db.sql)), { path, maxSizeMb }, ctx.logger);
  const outbound = { allowPrivate: ctx.config.security.allow_private_endpoints };
  const transports: Transports = {
    apns: overrides?.apns ?? new ApnsClient({ clock: ctx.clock, logger: ctx.logger, outbound }),
    fcm: overrides?.fcm ?? new FcmSender({ clock: ctx.clock, outbound }),
    webpush: overrides?.webpush ?? new WebPushTransport(new WebPushSender({ clock: ctx.clock, outbound })),
    simulator: overrides?.simulator ?? new SimulatorTransport(),
  };
  const worker = new DeliveryWorker(ctx, transports, ctx.metrics, workerOptions);
  // Quiet hours' holds, released when their window ends (holds/quiet-holds.ts).
  const quiet = quietHoldsConsumer(ctx);
  let stopping: Promise<void> | undefined;
  return {
    worker,
    transports,
    recover: () => worker.recover(),
    start: () => (worker.start(), quiet.start()),
    drain: async () => (await quiet.drain(), worker.drain()),
    stop() {
      stopping ??= (async () => {
        await quiet.stop();
        worker.halt();
        await worker.quiesce(stopTimeoutMs);
        await Promise.all(Object.values(transports).map((t) => t.close()));
        await worker.stop();
      })();
      return stopping;
    },
  };
}
