import { ANONYMOUS } from '../../../lib/anonymous';
import type { AppContext } from '../../../context';
import type { DeliveryOutcomeLabel, IsletMetrics } from '../../metrics/metrics';
import type { OutboxStore } from '../outbox/outbox-store';
import type { DeliveryResult, RecordedOutcomes } from './delivery.types';
import type { ClaimedDelivery } from './delivery.routing';
import { withEffects, type Decision } from './outcome-effects';

type Tally = { labels: { app: string; provider: string; kind: string; outcome: DeliveryOutcomeLabel }; n: number };

/**
 * The delivery worker's recording: gathers decided outcomes with their effects, writes them back
 * many per transaction (one write at a time), and keeps them to write again when the database
 * fails (each retry waiting longer, nothing claimed meanwhile). Counts outcomes for
 * islet_deliveries_total, added with each write: one labelled increment per kind and batch.
 */
export class OutcomeWriter {
  /** Claimed and not yet written back: the claim room counts these. */
  readonly claimed = new Set<number>();
  private results: DeliveryResult[] = [];
  private readonly tallies = new Map<string, Tally>();
  /** The write under way (one at a time). */
  private writing: Promise<number> | undefined;
  /** Real time of the last write. */
  private flushedAt = performance.now();
  /** Writes that failed in a row. */
  private failures = 0;
  private retryAt = 0;
  /** Deliveries of erased end users (their end pushes) decided for good: their leftovers go once written. */
  private readonly erasedDone = new Set<number>();

  constructor(
    private readonly ctx: AppContext,
    private readonly metrics: IsletMetrics,
    private readonly store: OutboxStore,
    private readonly flushSize: number,
    /** After each write: what the worker does once outcomes are in (releases, wake-ups). */
    private readonly written: (recorded: RecordedOutcomes) => Promise<void>,
  ) {}

  /** Outcomes could not be written at the last try. */
  get failing(): boolean {
    return this.failures > 0;
  }

  /** Takes a decision for a claimed row: its effects go with the next write. */
  add(row: ClaimedDelivery, decision: Decision): void {
    this.count(row, decision.provider, decision.label);
    const result = withEffects(decision.result, row);
    if (row.endUserId === ANONYMOUS) {
      // An erased end user's push (their end push): what was sent to them is not kept, and once
      // it is written nothing of theirs may wait any more.
      this.results.push({ ...result, sentPayload: null, messageBody: undefined });
      if (result.status !== 'pending' && result.status !== 'held') this.erasedDone.add(row.id);
    } else this.results.push(result);
  }

  /** Big batches for throughput, but a trickle is written within a moment too (the console shows it). */
  flushIfDue(): void {
    if (this.results.length >= this.flushSize || (this.results.length > 0 && performance.now() - this.flushedAt > 200)) void this.flush();
  }

  /**
   * Starts writing the outcomes gathered so far, unless a write is under way (then the next one
   * takes them). Resolves with the number written; never rejects.
   */
  flush(): Promise<number> {
    if (this.writing) return this.writing;
    const writing = this.write().finally(() => {
      if (this.writing === writing) this.writing = undefined;
    });
    return (this.writing = writing);
  }

  /** Waits for the write under way, then writes whatever is left; `now`: without waiting for a retry's time. */
  async flushAll(now = false): Promise<number> {
    if (now) this.retryAt = 0;
    let written = 0;
    while (this.writing) written += await this.writing;
    return written + (await this.flush());
  }

  /** Writes the outcomes gathered so far; on a database error they are kept for the next try. */
  private async write(): Promise<number> {
    this.publishCounts();
    if (this.results.length === 0 || performance.now() < this.retryAt) return 0;
    const batch = this.results;
    this.results = [];
    this.flushedAt = performance.now();
    let recorded;
    try {
      recorded = await this.store.record(batch, this.ctx.clock.now());
    } catch (e) {
      this.results = batch.concat(this.results);
      this.failures++;
      this.retryAt = performance.now() + Math.min(5000, 250 * 2 ** Math.min(this.failures - 1, 5));
      if (!this.ctx.db.storage.failed(e) || this.failures === 1)
        this.ctx.logger.error('writing delivery outcomes failed; kept to write again', { error: e instanceof Error ? e.message : String(e), count: this.results.length });
      return 0;
    }
    for (const p of recorded.paused)
      this.ctx.logger.warn('delivery channel paused until its credentials change', { appId: p.appId, provider: p.provider, reason: p.reason });
    for (const s of recorded.superseded) this.metrics.deliveries.inc({ app: s.appId, provider: s.provider ?? 'none', kind: 'la_update', outcome: 'superseded' });
    this.failures = 0;
    this.ctx.db.storage.succeeded();
    for (const r of batch) this.claimed.delete(r.id);
    await this.written(recorded);
    if (this.erasedDone.size > 0 && batch.filter((r) => this.erasedDone.delete(r.id)).length > 0) await this.pruneErased();
    return batch.length;
  }

  /** Removes what erasures kept for their end pushes, at once rather than at the next retention run. */
  private async pruneErased(): Promise<void> {
    try {
      await this.ctx.pruneErased();
    } catch (e) {
      // The retention job prunes them too; a busy or failing database only delays it.
      this.ctx.logger.warn('removing erased end users\' leftovers failed; the retention job will', { error: e instanceof Error ? e.message : String(e) });
    }
  }

  /** Counts an outcome; added to islet_deliveries_total with the next write (at most 200 ms later). */
  count(row: ClaimedDelivery, provider: string, outcome: DeliveryOutcomeLabel): void {
    const key = `${row.appId}\n${provider}\n${row.kind}\n${outcome}`;
    const tally = this.tallies.get(key);
    if (tally) tally.n++;
    else this.tallies.set(key, { labels: { app: row.appId, provider, kind: row.kind, outcome }, n: 1 });
  }

  private publishCounts(): void {
    for (const { labels, n } of this.tallies.values()) this.metrics.deliveries.inc(labels, n);
    this.tallies.clear();
  }
}
