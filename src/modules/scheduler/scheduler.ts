import type { Leadership } from '../../coordination/coordination';
import { alwaysLeader } from '../../coordination/local/leadership';
import type { Clock } from '../../lib/clock';
import type { Logger } from '../../lib/logger';

/** One named, periodic piece of work. `run` gets the clock's time and may be async. */
export interface Job {
  name: string;
  intervalMs: number;
  run(now: number): void | Promise<void>;
}

/**
 * Runs jobs on their intervals, by the injected clock: a job is due when its interval has passed
 * since it last started. A job never runs twice at once; `stop` waits for running jobs to finish.
 * Only the leader runs jobs (several instances on one database: one of them, see Leadership); a
 * leader that lost its lock starts no new job, but one already running goes on, so during a
 * takeover a job may run on two instances at once. Each job is safe so (jobs/takeover.test.ts):
 * retention deletes; iOS expiry queues an end only for the instances its write ended
 * (instances.end); quota ends activities and broadcasts by moving them from Active (markEnded,
 * broadcasts.end) and checks for its webhook events under a lock (hadEventSince). Stream rotation
 * is not a job: it happens in a PUT, under the stream key's lock. Queues (webhook deliveries,
 * scheduled sends) are not jobs: they run on the queue runtime (src/queue) on every instance.
 * Tests drive it with `tick()` and a fake clock instead of `start()`.
 * @example const s = new Scheduler([retentionJob(ctx)], clock, logger); s.start(); await s.stop();
 */
export class Scheduler {
  private readonly lastRun = new Map<string, number>();
  private readonly running = new Map<string, Promise<void>>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = true;

  constructor(
    private readonly jobs: Job[],
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** How often (real time) the scheduler looks for due jobs. */
    private readonly pollMs = 250,
    /** Told of every run: the job, how long it took (real time) and whether it succeeded (metrics). */
    private readonly onRun: (job: string, seconds: number, ok: boolean) => void = () => {},
    private readonly leadership: Leadership = alwaysLeader,
  ) {}

  /** Runs every job that is due now (all of them on the first call) and waits for them; nothing when not the leader. */
  async tick(): Promise<void> {
    if (!(await this.leadership.isLeader())) return;
    const now = this.clock.now();
    const started: Promise<void>[] = [];
    for (const job of this.jobs) {
      if (this.running.has(job.name)) continue;
      const last = this.lastRun.get(job.name);
      if (last !== undefined && now - last < job.intervalMs) continue;
      this.lastRun.set(job.name, now);
      const run = this.runJob(job, now).finally(() => this.running.delete(job.name));
      this.running.set(job.name, run);
      started.push(run);
    }
    await Promise.all(started);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      // Not awaited: a slow job must not delay the others' turns; running ones are skipped.
      void this.tick();
      this.timer = setTimeout(loop, this.pollMs);
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all(this.running.values());
  }

  private async runJob(job: Job, now: number): Promise<void> {
    const started = performance.now();
    let ok = true;
    try {
      await job.run(now);
    } catch (e) {
      ok = false;
      this.logger.error('scheduled job failed', { job: job.name, error: e instanceof Error ? e.message : String(e) });
    }
    this.onRun(job.name, (performance.now() - started) / 1000, ok);
  }
}
