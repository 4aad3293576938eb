import type { EndpointHealthState } from '../coordination';

/**
 * Provider endpoint health in memory: after a restart every endpoint starts healthy and finds out
 * again with its first requests (the deliveries themselves stay in the database).
 */
export function localEndpointHealth<R>(): EndpointHealthState<R> {
  return { endpoints: new Map(), forgotten: new Map(), tokenBackoffs: new Map() };
}
