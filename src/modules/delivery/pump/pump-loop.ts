import type { WakeUps, WakeUpTopic } from '../../../coordination/coordination';
import type { Logger } from '../../../lib/logger';

export interface PumpLoopOptions {
  /** What the loop is called in its log lines ("delivery worker"). */
  name: string;
  /** Real time between looks at the queue when it is idle. */
  pollMs: number;
  /** Real time before trying again after a round that failed on the storage (`quiet`), or while `failing()` says so. */
  failedPollMs?: number;
  /** The wake-ups that cut the idle wait short (new work was queued, here or on another instance). */
  wakeOn: readonly WakeUpTopic[];
  /**
   * A round: works off what is due; whatever it throws is logged (unless `quiet` says not) and
   * tried again. Resolving with `true` says more may be due at once: the next round starts without a wait.
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
 * The loop every outbox consumer runs (deliveries, broadcast steps): a round, then a wait that a
 * wake-up cuts short. A wake-up heard during a round skips the next wait instead of being slept
 * through; a failed round waits longer before the next. `stop` ends it after the round under way.
 * @example const loop = new PumpLoop(wakeUps, logger, { name: 'broadcast worker', pollMs: 250, wakeOn: ['broadcasts-queued'], round: () => worker.drain() });
 */
export class PumpLoop {
  private running: Promise<void> | undefined;
  private sleeper: (() => void) | undefined;
  private wokenMeanwhile = false;
  private stopping = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly wakeUps: WakeUps,
    private readonly logger: Logger,
    private readonly options: PumpLoopOptions,
  ) {}

  get started(): boolean {
    return this.running !== undefined;
  }

  start(): void {
    if (this.running) return;
    const offs = this.options.wakeOn.map((topic) => this.wakeUps.on(topic, () => this.wake()));
    this.unsubscribe = () => offs.forEach((off) => off());
    this.running = (async () => {
      while (!this.stopping) {
        let storageFailed = false;
        let more = false;
        try {
          more = (await this.options.round()) === true;
        } catch (e) {
          storageFailed = this.options.quiet?.(e) ?? false;
          if (!storageFailed) this.logger.error(`${this.options.name} failed`, { error: e instanceof Error ? e.message : String(e) });
        }
        const failing = storageFailed || (this.options.failing?.() ?? false);
        if (this.stopping) break;
        if (failing || !(this.wokenMeanwhile || more)) await this.sleep(failing ? (this.options.failedPollMs ?? 1000) : this.options.pollMs);
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
