import type { EndpointHealthState, StateMap } from '../../../coordination/coordination';
import type { Clock } from '../../../lib/clock';
import type { Logger } from '../../../lib/logger';
import { newRecord, statusOf, type Admission, type EndpointHealthOptions, type EndpointKey, type EndpointRecord, type EndpointStatus, type HealthState } from './endpoint-record';

export type { Admission, EndpointHealthOptions, EndpointKey, EndpointRecord, EndpointStatus, HealthState } from './endpoint-record';
export { endpointDownReason, endpointHold, endpointOf } from './endpoint-key';

/**
 * Per endpoint (app, provider, endpoint) state driven by connection-level results, kept in the
 * coordination's endpoint health state (in memory today: after a restart every endpoint starts
 * healthy and finds out again with its first requests, while the deliveries themselves stay in the
 * database). Each change of a endpoint is written back to the state. Also remembers per device token
 * backoffs (a 429 about one token). Time comes from the context's clock, so tests move it. One per
 * context (`ctx.endpointHealth`, made by bootstrap): the delivery worker feeds it, the admin API,
 * the console and /metrics read it.
 * @example ctx.endpointHealth.admit(key, token, now);
 */
export class EndpointHealth {
  /** Told when a endpoint goes down (the delivery worker's guard sends the channel.down webhook). */
  onDown: (key: EndpointKey, reason: string) => void = () => {};
  private readonly endpoints: StateMap<string, EndpointRecord>;
  /** Endpoints forgotten (`forget`) and not sent to since: results of requests that were in flight then are ignored. */
  private readonly forgotten: StateMap<string, true>;
  private readonly tokens: StateMap<string, number>;
  private downAfter!: number;
  private downAfterMs!: number;
  private probeBaseMs!: number;
  private probeCapMs!: number;
  private slowAfter!: number;

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly state: EndpointHealthState<EndpointRecord>,
    options: EndpointHealthOptions = {},
  ) {
    this.endpoints = state.endpoints;
    this.forgotten = state.forgotten;
    this.tokens = state.tokenBackoffs;
    this.configure(options);
  }

  /** Sets the thresholds (the worker passes its options; tests shorten the real-time window). */
  configure(options: EndpointHealthOptions): void {
    this.downAfter = options.downAfter ?? 3;
    this.downAfterMs = options.downAfterMs ?? 250;
    this.probeBaseMs = options.probeBaseMs ?? 1000;
    this.probeCapMs = options.probeCapMs ?? 15_000;
    this.slowAfter = options.slowAfter ?? 5;
  }

  /** The map key of a endpoint. */
  static id(key: EndpointKey): string {
    return `${key.appId}|${key.provider}|${key.endpoint}`;
  }

  /**
   * Whether a delivery may go now. Down: only the probe, once it is due and none is out; the rest
   * is held. Slowed by a Retry-After: pending again at its end. A token backing off: pending again
   * when it may be sent to.
   */
  admit(key: EndpointKey, token: string | undefined, now: number): Admission {
    if (this.forgotten.size > 0) this.forgotten.delete(EndpointHealth.id(key));
    const c = this.endpoints.get(EndpointHealth.id(key));
    if (c?.state === 'down') {
      if (probeOut(c, now) || now < c.nextProbeAt) return { go: false, hold: true };
      return { go: true, probe: true };
    }
    if (c && c.slowUntil > now) return { go: false, hold: false, until: c.slowUntil };
    if (token !== undefined && this.tokens.size > 0) {
      const until = this.tokens.get(token);
      if (until !== undefined) {
        if (until > now) return { go: false, hold: false, until };
        this.tokens.delete(token);
      }
    }
    return { go: true, probe: false };
  }

  /**
   * After `admit` let a probe go: whether this sender takes it (false: another sender, of this or
   * another instance sharing the state, took this round's probe; the delivery is held). Once taken,
   * the record says a probe is out. Only a taken probe writes the record, so a sender whose copy
   * was behind never writes it back over a newer one.
   */
  takeProbe(key: EndpointKey, now: number): boolean | Promise<boolean> {
    const id = EndpointHealth.id(key);
    const c = this.endpoints.get(id);
    if (!c) return true;
    const taken = this.state.takeProbe(id, c.nextProbeAt, now, PROBE_LOST_MS);
    return typeof taken === 'boolean' ? this.probeTaken(id, taken, now) : taken.then((t) => this.probeTaken(id, t, now));
  }

  private probeTaken(id: string, taken: boolean, now: number): boolean {
    const c = this.endpoints.get(id);
    if (!taken || c?.state !== 'down') return taken;
    c.probeInFlight = true;
    c.probeTakenAt = now;
    c.probeReleasedAt = null;
    this.save(c);
    return true;
  }

  /**
   * The provider answered (whatever it said about the message): the endpoint is reachable.
   * Returns the endpoint as it was when this ended an outage: the worker releases its held
   * deliveries and logs how long it was down.
   */
  answered(key: EndpointKey): EndpointStatus | undefined {
    const c = this.endpoints.get(EndpointHealth.id(key));
    if (!c || (c.state === 'healthy' && c.failures === 0)) return undefined;
    const wasDown = c.state === 'down';
    const status = statusOf(c, this.clock.now());
    c.failures = 0;
    c.probeInFlight = false;
    c.probes = 0;
    if (c.throttles === 0 && c.slowUntil <= this.clock.now()) this.enter(c, 'healthy', null);
    this.save(c);
    return wasDown ? status : undefined;
  }

  /** A success: like `answered`, and the throttling streak ends too. */
  delivered(key: EndpointKey): EndpointStatus | undefined {
    const c = this.endpoints.get(EndpointHealth.id(key));
    if (c && c.throttles > 0 && c.state !== 'down') {
      c.throttles = 0;
      if (c.slowUntil <= this.clock.now() && c.failures === 0) this.enter(c, 'healthy', null);
      this.save(c);
    }
    return this.answered(key);
  }

  /**
   * No answer (refused, TLS, timeout, reset, dropped). Returns true when the endpoint is down after
   * it (the delivery is then held instead of retried).
   */
  connectionFailed(key: EndpointKey, reason: string, probe: boolean): boolean {
    if (this.isForgotten(key)) return false;
    const c = this.endpoint(key);
    const down = this.failedOn(c, reason, probe);
    this.save(c);
    return down;
  }

  /** `connectionFailed` on a endpoint's record, which the caller writes back. */
  private failedOn(c: EndpointRecord, reason: string, probe: boolean): boolean {
    const { key } = c;
    const now = this.clock.now();
    if (c.failures++ === 0) c.failingSince = realNow();
    if (c.state === 'down') {
      if (probe) {
        c.probeInFlight = false;
        c.probes++;
        c.nextProbeAt = now + this.probeDelay(c.probes);
        c.reason = reason;
      }
      return true;
    }
    if (c.failures < this.downAfter || realNow() - c.failingSince < this.downAfterMs) {
      if (c.state === 'healthy') this.enter(c, 'degraded', reason);
      else c.reason = reason;
      return false;
    }
    this.enter(c, 'down', reason);
    c.probes = 0;
    c.probeInFlight = false;
    c.probeReleasedAt = null;
    c.nextProbeAt = now + this.probeDelay(0);
    this.logger.warn('delivery channel down', { ...key, reason });
    this.onDown(key, reason);
    return true;
  }

  /**
   * The provider asked the whole endpoint to wait (overloaded, project quota). With a Retry-After
   * the endpoint waits that long at once; without, only a streak of such answers slows it (an
   * isolated 503 among successes is retried on its own). Returns when the delivery may go again.
   */
  throttled(key: EndpointKey, reason: string, afterMs: number | undefined, random: () => number): number {
    const now = this.clock.now();
    if (this.isForgotten(key)) return now + (afterMs ?? Math.floor(random() * 1000));
    const c = this.endpoint(key);
    c.throttles++;
    let wait = afterMs;
    if (wait === undefined && c.throttles >= this.slowAfter) wait = Math.min(60_000, 1000 * 2 ** Math.min(c.throttles - this.slowAfter, 6));
    if (wait !== undefined) {
      c.slowUntil = Math.max(c.slowUntil, now + wait);
      if (c.state === 'healthy') this.enter(c, 'degraded', reason);
      else if (c.state === 'degraded') c.reason = reason;
    }
    this.save(c);
    if (wait !== undefined) return c.slowUntil;
    return Math.max(c.slowUntil, now + Math.floor(random() * 1000));
  }

  /** A 429 about one device token: only deliveries to it wait. */
  tokenBackoff(token: string, until: number): void {
    if (this.tokens.size > 100_000) this.pruneTokens();
    this.tokens.set(token, Math.max(until, this.tokens.get(token) ?? 0));
  }

  /**
   * Down endpoints whose probe is due but that have nothing to send it with: the worker releases
   * one held delivery for each. A released one that never came back (routed elsewhere) is
   * replaced after a while.
   */
  probesDue(now: number): EndpointKey[] {
    const due: EndpointKey[] = [];
    for (const c of this.endpoints.values()) {
      if (c.state !== 'down' || probeOut(c, now) || now < c.nextProbeAt) continue;
      if (c.probeReleasedAt !== null && now - c.probeReleasedAt < 5000) continue;
      c.probeReleasedAt = now;
      this.save(c);
      due.push(c.key);
    }
    return due;
  }

  /**
   * Drops what is known of an app's endpoints to a provider (its credentials changed or were
   * removed: an old endpoint may never be asked again). Requests in flight to them until now say
   * nothing more about them.
   */
  forget(appId: string, provider: EndpointKey['provider']): void {
    for (const [id, c] of this.endpoints.entries()) {
      if (c.key.appId !== appId || c.key.provider !== provider) continue;
      this.endpoints.delete(id);
      this.forgotten.set(id, true);
    }
  }

  private isForgotten(key: EndpointKey): boolean {
    return this.forgotten.size > 0 && this.forgotten.has(EndpointHealth.id(key));
  }

  /** Whether any endpoint is down (the worker then looks for due probes). */
  anyDown(): boolean {
    for (const c of this.endpoints.values()) if (c.state === 'down') return true;
    return false;
  }

  /** Endpoints that are or were not healthy, for one app or all. */
  list(appId?: string): EndpointStatus[] {
    const now = this.clock.now();
    const out: EndpointStatus[] = [];
    for (const c of this.endpoints.values()) {
      if (appId !== undefined && c.key.appId !== appId) continue;
      if (c.state === 'degraded' && c.failures === 0 && c.throttles === 0 && c.slowUntil <= now) {
        this.enter(c, 'healthy', null);
        this.save(c);
      }
      out.push(statusOf(c, this.clock.now()));
    }
    return out;
  }

  /** Writes a changed endpoint back to the state (a no-op for the in-memory one, which holds the object itself). */
  private save(c: EndpointRecord): void {
    this.endpoints.set(EndpointHealth.id(c.key), c);
  }

  private endpoint(key: EndpointKey): EndpointRecord {
    const id = EndpointHealth.id(key);
    let c = this.endpoints.get(id);
    if (!c) {
      c = newRecord(key, this.clock.now());
      this.endpoints.set(id, c);
    }
    return c;
  }

  private enter(c: EndpointRecord, state: HealthState, reason: string | null): void {
    if (c.state !== state) c.since = this.clock.now();
    c.state = state;
    c.reason = reason;
  }

  private probeDelay(failedProbes: number): number {
    return Math.min(this.probeCapMs, this.probeBaseMs * 2 ** Math.min(failedProbes, 20));
  }

  private pruneTokens(): void {
    const now = this.clock.now();
    for (const [token, until] of this.tokens.entries()) if (until <= now) this.tokens.delete(token);
  }
}

/**
 * Longer than any request lasts (connect and answer timeouts): a probe out this long never comes
 * back (the instance that sent it died, when several share the records), so another may go.
 */
export const PROBE_LOST_MS = 60_000;

const probeOut = (c: EndpointRecord, now: number) => c.probeInFlight && now - c.probeTakenAt < PROBE_LOST_MS;

/** Real time as ms since the epoch (performance's monotonic clock, from the process's start). */
const realNow = () => performance.timeOrigin + performance.now();
