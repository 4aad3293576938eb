import type { EndpointHealthState } from '../coordination';

/**
 * Provider endpoint health in memory: after a restart every endpoint starts healthy and finds out
 * again with its first requests (the deliveries themselves stay in the database).
 */
export function localEndpointHealth<R>(): EndpointHealthState<R> {
  /** When each endpoint's last probe was taken (one entry per endpoint ever down). */
  const probes = new Map<string, number>();
  return {
    endpoints: new Map(),
    forgotten: new Map(),
    tokenBackoffs: new Map(),
    takeProbe(endpointId, due, now, lostAfterMs) {
      const takenAt = probes.get(endpointId);
      if (takenAt !== undefined && takenAt >= due && takenAt > now - lostAfterMs) return false;
      probes.set(endpointId, now);
      return true;
    },
  };
}
