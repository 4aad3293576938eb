import { inCompiledBinary } from '../../../lib/compiled-binary';
import type { Logger } from '../../../lib/logger';
import type { ClaimedDelivery } from '../worker/delivery.routing';
import type { DeliveryResult, RecordedOutcomes } from '../worker/delivery.types';
import type { OutboxStore } from './outbox-store';

export type ThreadRequest = { id: number } & (
  | { op: 'open'; path: string; maxSizeMb?: number }
  | { op: 'claim'; now: number; limit: number }
  /** `results`: DeliveryResult[] as JSON (a string crosses threads at about half the cost of the objects). */
  | { op: 'record'; results: string; now: number }
  | { op: 'close' }
);
export type ThreadReply = { id: number } & ({ value: unknown } | { error: { message: string; code?: string } });

/**
 * The thread's code: in the compiled binary an entry point of its own, kept at its path under the
 * build's --root (scripts/build.ts; the binary's own module is /$bunfs/root/islet, so a path
 * relative to it would miss it); from source, the file beside this one.
 */
const THREAD_ENTRY = inCompiledBinary()
  ? '/$bunfs/root/src/modules/delivery/outbox/outbox-thread.entry.js'
  : new URL('./outbox-thread.entry.ts', import.meta.url).href;

/** Bun's Worker: ref/unref as on a timer. */
type BunWorker = Worker & { ref(): void; unref(): void };
type Call = { resolve: (value: any) => void; reject: (error: unknown) => void };

/**
 * The main thread's side of the outbox thread: the outbox on a worker thread of its own
 * (outbox-thread.entry.ts runs there, with its own connection to the same file), so that claiming
 * and recording — about half the CPU of a delivery — run beside the thread that drives HTTP/2
 * instead of on it. The thread starts with the first claim that finds work (an
 * idle server keeps one JS context); until it is ready, and for good if it ever fails, the outbox
 * runs inline on this thread. A claim whose answer was lost with a failed thread stays `sending`
 * until the next start puts it back in the queue (at least once).
 */
export class OutboxThread implements OutboxStore {
  private worker: BunWorker | undefined;
  private opening: Promise<void> | undefined;
  private ready = false;
  /** Failed or closed: never started again. */
  private stopped = false;
  private nextId = 1;
  private readonly calls = new Map<number, Call>();

  constructor(
    private readonly inline: OutboxStore,
    private readonly database: { path: string; maxSizeMb?: number },
    private readonly logger: Logger,
  ) {}

  async claim(now: number, limit: number): Promise<ClaimedDelivery[]> {
    if (this.ready) return unpackClaimed(await this.call<string>({ op: 'claim', now, limit }));
    const rows = await this.inline.claim(now, limit);
    if (rows.length > 0) void this.spawn();
    return rows;
  }

  record(results: DeliveryResult[], now: number): Promise<RecordedOutcomes> {
    return this.ready ? this.call({ op: 'record', results: JSON.stringify(results), now }) : this.inline.record(results, now);
  }

  /** Closes the thread's connection and ends it; the outbox stays inline from then on. */
  async close(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    if (!worker) return;
    if (this.ready) await this.call({ op: 'close' }).catch(() => {});
    this.end(worker, 'closed');
  }

  /** Whether claims and records run on the thread now. */
  get threaded(): boolean {
    return this.ready;
  }

  /** Starts the thread now rather than at the first claim that finds work; resolves with whether it runs. */
  async start(): Promise<boolean> {
    await this.spawn();
    return this.ready;
  }

  private spawn(): Promise<void> {
    if (this.opening) return this.opening;
    if (this.stopped) return Promise.resolve();
    // smol: a small heap, collected often; the thread holds little between batches.
    const worker = new Worker(THREAD_ENTRY, { smol: true } as WorkerOptions) as BunWorker;
    this.worker = worker;
    worker.addEventListener('message', (event: MessageEvent<ThreadReply>) => {
      const reply = event.data;
      const call = this.calls.get(reply.id);
      if (!call) return;
      this.calls.delete(reply.id);
      if (this.calls.size === 0) worker.unref();
      if ('error' in reply) call.reject(Object.assign(new Error(reply.error.message), reply.error.code ? { code: reply.error.code } : {}));
      else call.resolve(reply.value);
    });
    worker.addEventListener('error', (event) => this.fail(event.message));
    // The thread keeps the process alive only while a call waits for it (see call()).
    worker.unref();
    // An open that fails (e.g. the file is gone) leaves the outbox inline.
    this.opening = this.call({ op: 'open', ...this.database }, worker).then(
      () => {
        this.ready = this.worker === worker;
        if (this.ready) this.logger.info('outbox thread started: deliveries are claimed and recorded beside the sending thread');
      },
      (e: unknown) => this.fail(e instanceof Error ? e.message : String(e)),
    );
    return this.opening;
  }

  private fail(reason: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.logger.error('the outbox thread failed: claims and outcomes run on the main thread from now on; deliveries it had claimed go out again at the next start', { error: reason });
    if (this.worker) this.end(this.worker, `failed: ${reason}`);
  }

  /** Ends the thread; calls still waiting for it fail (the worker keeps their outcomes to write again). */
  private end(worker: BunWorker, why: string): void {
    this.ready = false;
    this.worker = undefined;
    worker.terminate();
    const calls = [...this.calls.values()];
    this.calls.clear();
    for (const call of calls) call.reject(new Error(`outbox thread ${why}`));
  }

  private call<T>(request: DistributiveOmit<ThreadRequest, 'id'>, worker = this.worker): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (!worker) return reject(new Error('outbox thread is not running'));
      const id = this.nextId++;
      if (this.calls.size === 0) worker.ref();
      this.calls.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    });
  }
}

/** The thread's claimed rows (outbox-thread.entry.ts packClaimed): one JSON string, each message's content and body once. */
function unpackClaimed(packed: string): ClaimedDelivery[] {
  const { messages, rows } = JSON.parse(packed) as { messages: Record<number, [string, string | null]>; rows: Omit<ClaimedDelivery, 'content' | 'sentBody'>[] };
  return rows.map((row) => {
    const [content, sentBody] = messages[row.messageId]!;
    return Object.assign(row, { content, sentBody });
  });
}

type DistributiveOmit<T, K extends keyof any> = T extends unknown ? Omit<T, K> : never;
