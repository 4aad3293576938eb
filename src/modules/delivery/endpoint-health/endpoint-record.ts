/**
 * The types of endpoint health (endpoint-health.ts): what the worker, the admin API and the
 * coordination's state (which holds EndpointRecords) share, and a record's making and showing.
 */

/**
 * healthy: answers arrive. degraded: connection-level failures or the provider's overload
 * answers, deliveries still go (spaced when the provider asked). down: the provider cannot be
 * reached; the endpoint's deliveries are held (no attempt spent) and a single probe goes at a time.
 */
export type HealthState = 'healthy' | 'degraded' | 'down';

/** One app's way to one provider endpoint (APNs production and sandbox are two endpoints); not an APNs broadcast channel. */
export interface EndpointKey {
  appId: string;
  provider: 'apns' | 'fcm' | 'webpush';
  endpoint: string;
}

export interface EndpointStatus extends EndpointKey {
  state: HealthState;
  /** Why it is not healthy (the last connection failure or throttling answer). */
  reason: string | null;
  /** When it entered its current state (ms since the epoch). */
  since: number;
  /** Down: when the next probe may go. */
  nextProbeAt: number | null;
  /** Degraded by a provider's Retry-After: nothing goes before this. */
  slowUntil: number | null;
}

export interface EndpointHealthOptions {
  /** Connection-level failures in a row (no answer in between) that take a endpoint down… */
  downAfter?: number;
  /**
   * …once they have gone on for this long (real time): a connection that drops fails all its
   * streams in the same instant, and the next connection usually answers at once.
   */
  downAfterMs?: number;
  /** The first probe waits this long; each failed probe doubles it up to `probeCapMs`. */
  probeBaseMs?: number;
  probeCapMs?: number;
  /** Throttling answers in a row without Retry-After that slow the endpoint down on their own. */
  slowAfter?: number;
}

/** What the worker may do with a delivery for a endpoint right now. */
export type Admission = { go: true; probe: boolean } | { go: false; hold: true } | { go: false; hold: false; until: number };

/** What is known of one endpoint (the coordination's endpoint health state holds these). */
export interface EndpointRecord {
  key: EndpointKey;
  state: HealthState;
  reason: string | null;
  since: number;
  failures: number;
  /**
   * Real time (realNow: not the context's clock, which tests move) of the first failure of the
   * current streak, in ms since the epoch, so instances sharing the record compare the same times.
   */
  failingSince: number;
  throttles: number;
  probes: number;
  nextProbeAt: number;
  probeInFlight: boolean;
  /** When the probe in flight was taken: one out longer than PROBE_LOST_MS was lost with its instance. */
  probeTakenAt: number;
  /** A held delivery was released to serve as the probe and has not reached `admit` yet. */
  probeReleasedAt: number | null;
  slowUntil: number;
}

/** A healthy endpoint's first record. */
export function newRecord(key: EndpointKey, now: number): EndpointRecord {
  return {
    key: { appId: key.appId, provider: key.provider, endpoint: key.endpoint },
    state: 'healthy',
    reason: null,
    since: now,
    failures: 0,
    failingSince: 0,
    throttles: 0,
    probes: 0,
    nextProbeAt: 0,
    probeInFlight: false,
    probeTakenAt: 0,
    probeReleasedAt: null,
    slowUntil: 0,
  };
}

/** What the admin API and the console show of a record at `now`. */
export function statusOf(c: EndpointRecord, now: number): EndpointStatus {
  return {
    ...c.key,
    state: c.state,
    reason: c.reason,
    since: c.since,
    nextProbeAt: c.state === 'down' ? c.nextProbeAt : null,
    slowUntil: c.slowUntil > now ? c.slowUntil : null,
  };
}
