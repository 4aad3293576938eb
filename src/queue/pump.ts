import type { WakeUps, WakeUpTopic } from '../coordination/coordination';
import type { Logger } from '../lib/logger';

/** What a queue's consumer gives the pump: when to look, what a round does, what to put back at start. */
export interface Consumer {
  /** What the consumer is called in its log lines ("delivery worker"). */
  name: string;
  /** Real time between looks at the queue when it is idle (what comes due by the clock: retries, send times). */
  pollMs: number;
  /** Real time before trying again after a round that failed on the storage (`quiet`), or while `failing()` says so. */
  failedPollMs?: number;
  /** The wake-ups that cut the idle wait short (new work was queued, here or on another instance); none: polled only. */
  wakeOn: readonly WakeUpTopic[];
  /**
   * Start-up recovery: puts back what a stopped process left claimed (on PostgreSQL only claims of
   * instances without a live lease: `claims.orphaned`), through `coordination.instance.recover` so
   * that it runs again whenever another instance's lease runs out. Run before the first round,
   * once, and again before the next round after a failure. The server awaits it (`Pump.recover`)
   * before it listens.
   */
  recover?: () => Promise<void>;
  /**
   * A round: claims what is due and works it off; whatever it throws is logged (unless `quiet`
   * says not) and tried again. Resolving with `true` says more may be due at once: the next round
   * starts without a wait.
   */
  round: () => Promise<boolean | void>;
  /**
   * Whether a failure is the storage's (a full disk), told once by the storage health: not logged
   * again at every round, and the next round waits failedPollMs. Any other failure is logged and
   * the loop goes on at pollMs.
   */
  quiet?: (error: unknown) => boolean;
  /** Whether the last round left something failing (outcomes not yet written): waits failedPollMs. */
  failing?: () => boolean;
}

/**
 * The queue runtime every consumer runs on (deliveries, broadcast steps, webhook deliveries,
 * scheduled sends): recovery once, then a round, then a wait of `pollMs` that a wake-up cuts short.
 * A wake-up heard during a round skips the next wait instead of being slept through; a failed
 * round waits longer before the next. `stop` ends it after the round under way. What a round
 * claims, and how, is the consumer's (its repository's statements, with the ownership fragments
 * of `claims.ts`).
 * @example const pump = new Pump(ctx.coordination.wakeUps, ctx.logger, { name: 'broadcast worker', pollMs: 250, wakeOn: ['broadcasts-queued'], round: () => worker.drain() });
 *          pump.start(); … await pump.stop();
 */
export class Pump {
  private running: Promise<void> | undefined;
  private recovery: Promise<void> | undefined;
  private sleeper: (() => void) | undefined;
  private wokenMeanwhile = false;
  private stopping = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly wakeUps: WakeUps,
    private readonly logger: Logger,
    private readonly consumer: Consumer,
  ) {}

  get started(): boolean {
    return this.running !== undefined;
  }

  /** The consumer's start-up recovery: done once, tried again after a failure (which it rejects with). */
  recover(): Promise<void> {
    const recover = this.consumer.recover;
    if (!recover) return Promise.resolve();
    this.recovery ??= recover().catch((e) => {
      this.recovery = undefined;
      throw e;
    });
    return this.recovery;
  }

  /** One round as the loop runs it, recovery first (tests drive the queue so, with a fake clock). */
  async round(): Promise<boolean> {
    await this.recover();
    return (await this.consumer.round()) === true;
  }

  start(): void {
    if (this.running) return;
    const { consumer } = this;
    const offs = consumer.wakeOn.map((topic) => this.wakeUps.on(topic, () => this.wake()));
    this.unsubscribe = () => offs.forEach((off) => off());
    this.running = (async () => {
      while (!this.stopping) {
        let storageFailed = false;
        let more = false;
        try {
          more = await this.round();
        } catch (e) {
          storageFailed = consumer.quiet?.(e) ?? false;
          if (!storageFailed) this.logger.error(`${consumer.name} failed`, { error: e instanceof Error ? e.message : String(e) });
        }
        const failing = storageFailed || (consumer.failing?.() ?? false);
        if (this.stopping) break;
        if (failing || !(this.wokenMeanwhile || more)) await this.sleep(failing ? (consumer.failedPollMs ?? 1000) : consumer.pollMs);
        this.wokenMeanwhile = false;
      }
    })();
  }

  /** Cuts the idle wait short; heard during a round, the next wait is skipped. */
  wake(): void {
    if (this.sleeper) this.sleeper();
    else this.wokenMeanwhile = true;
  }

  /** Ends the loop once the round under way is over. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    this.wake();
    await this.running;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.sleeper = undefined;
        resolve();
      }, ms);
      this.sleeper = () => {
        clearTimeout(timer);
        this.sleeper = undefined;
        resolve();
      };
    });
  }
}
