import { one } from '../../db/postgres/query';
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
 * each endpoint once. A down endpoint's probe is taken by one UPSERT of a row of its own (map
 * `endpoint-health:probes`, value = when taken), apart from the record every instance rewrites:
 * one probe goes at a time across instances.
 * @example const state = pgEndpointHealth<EndpointRecord>(cluster); await state.ready; … await state.stop();
 */
export function pgEndpointHealth<R>(cluster: PgCluster, reloadMs = ENDPOINT_HEALTH_RELOAD_MS): EndpointHealthState<R> & { ready: Promise<void>; stop(): Promise<void> } {
  const maps = sharedMaps(cluster, ['endpoint-health:endpoints', 'endpoint-health:forgotten', 'endpoint-health:token-backoffs'], reloadMs);
  return {
    endpoints: maps.map<R>('endpoint-health:endpoints'),
    forgotten: maps.map<true>('endpoint-health:forgotten'),
    tokenBackoffs: maps.map<number>('endpoint-health:token-backoffs'),
    takeProbe: async (endpointId, due, now, lostAfterMs) =>
      (await one(
        cluster.sql,
        `INSERT INTO shared_state AS s (map, key, value, updated_at) VALUES ('endpoint-health:probes', $1, $2::bigint::text, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
         ON CONFLICT (map, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at
         WHERE s.value::bigint < $3::bigint OR s.value::bigint <= $2::bigint - $4::bigint
         RETURNING key`,
        [endpointId, now, due, lostAfterMs],
      )) !== undefined,
    ready: maps.ready,
    stop: () => maps.stop(),
  };
}
