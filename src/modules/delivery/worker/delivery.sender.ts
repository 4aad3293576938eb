import type { AppContext } from '../../../context';
import type { IsletMetrics } from '../../metrics/metrics';
import type { BackoffPolicy } from '../../../queue/backoff';
import type { EndpointGuard, Gate, HeldBack } from '../endpoint-health/endpoint-guard';
import { Semaphore } from './concurrency';
import type { AppChannels, ClaimedDelivery } from './delivery.routing';
import { sentDecision, type Decision, type SendRoute } from './outcome-effects';
import { SentBodies } from './sent-bodies';
import type { Outcome, Transports } from '../providers/transport';

/**
 * The delivery worker's sending: one routed delivery at a time through its transport, with bounded
 * concurrency per app and transport, asking the endpoint guard first; each answer is decided
 * (the guard's for the endpoint, outcome-effects' otherwise) and handed to `decided`.
 */
export class DeliverySender {
  private readonly limiters = new Map<string, Semaphore>();
  private readonly bodies = new SentBodies();
  private inFlight = 0;
  private settled: (() => void) | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly transports: Transports,
    private readonly metrics: IsletMetrics,
    private readonly guard: EndpointGuard,
    private readonly options: { perChannel: number; random: () => number; backoff: BackoffPolicy },
    private readonly decided: (row: ClaimedDelivery, decision: Decision) => void,
  ) {}

  /** Sends in flight now. */
  get sending(): number {
    return this.inFlight;
  }

  send(row: ClaimedDelivery, route: SendRoute, app: AppChannels): void {
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
        if (outcome.kind === 'held-back') this.decided(row, { result: outcome.result, provider: route.transport, label: 'held' });
        else this.decided(row, this.decide(row, route, app, outcome, gate));
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

  /** Resolves when the next send in flight ends. */
  nextSettle(): Promise<void> {
    return new Promise((resolve) => {
      const previous = this.settled;
      this.settled = () => {
        this.settled = undefined;
        previous?.();
        resolve();
      };
    });
  }

  /** A provider's answer: the endpoint guard's when it is about the endpoint, else outcome-effects'. */
  private decide(row: ClaimedDelivery, route: SendRoute, app: AppChannels, outcome: Outcome, gate: Gate | undefined): Decision {
    const sent = { id: row.id, attempts: row.attempts + 1, nextAttemptAt: row.nextAttemptAt, provider: route.transport, providerId: null, ...this.bodies.recorded(row, route) };
    const provider = route.transport;
    if (gate && outcome.kind !== 'unreachable') this.guard.answered(gate, outcome);
    if (outcome.kind === 'unreachable') return { result: this.guard.unreachable(gate, outcome, row, sent), provider, label: 'unreachable' };
    if (outcome.kind === 'retry' && outcome.scope === 'channel') return { result: this.guard.throttled(gate, outcome, row, sent), provider, label: 'retry' };
    const decision = sentDecision({ row, route, app, sent }, outcome, { now: this.ctx.clock.now(), random: this.options.random, backoff: this.options.backoff });
    if (decision.tokenBackoffUntil !== undefined) this.guard.tokenWait(row, route, decision.tokenBackoffUntil);
    return decision;
  }
}
