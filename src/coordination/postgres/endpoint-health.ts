import type { EndpointHealthState } from '../coordination';
import type { PgCluster } from './cluster';
import { sharedMaps } from './shared-maps';

/** How often each instance reloads every endpoint record, in case a notice was lost. */
export const ENDPOINT_HEALTH_RELOAD_MS = 2000;

/**
 * Provider endpoint health shared by every instance on one PostgreSQL (EndpointHealthState in
 * ../coordination.ts): the endpoint records, forgotten endpoints and token backoffs are shared
 * maps (shared-maps.ts), so one instance seeing APNs down holds the others' deliveries for that
 * endpoint within a notice's round trip, and the admin API and the console of any instance list
 * each endpoint once. Taking a down endpoint's probe is not atomic across instances: each instance
 * sends at most one probe at a time, and one taken is seen by the others as soon as its record is
 * written back (so at most one probe per instance, usually one in all).
 * @example const state = pgEndpointHealth<EndpointRecord>(cluster); await state.ready; … await state.stop();
 */
export function pgEndpointHealth<R>(cluster: PgCluster, reloadMs = ENDPOINT_HEALTH_RELOAD_MS): EndpointHealthState<R> & { ready: Promise<void>; stop(): Promise<void> } {
  const maps = sharedMaps(cluster, ['endpoint-health:endpoints', 'endpoint-health:forgotten', 'endpoint-health:token-backoffs'], reloadMs);
  return {
    endpoints: maps.map<R>('endpoint-health:endpoints'),
    forgotten: maps.map<true>('endpoint-health:forgotten'),
    tokenBackoffs: maps.map<number>('endpoint-health:token-backoffs'),
    ready: maps.ready,
    stop: () => maps.stop(),
  };
}
