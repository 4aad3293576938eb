import type { Config } from './config/config.schema';
import type { Store } from './db/store';
import type { Coordination } from './coordination/coordination';
import type { Clock } from './lib/clock';
import type { Logger } from './lib/logger';
import type { SecretBox } from './lib/secrets';
import type { EndpointHealth } from './modules/delivery/endpoint-health/endpoint-health';
import type { Outbox } from './modules/delivery/outbox/outbox';
import type { IsletMetrics } from './modules/metrics/metrics';

/** Everything a module needs, built once by createApp's caller and passed down; no globals. */
export interface AppContext {
  config: Config;
  /** The data seam: units of work and repositories (src/db/store.ts). */
  db: Store;
  clock: Clock;
  logger: Logger;
  /** Seals and opens secrets stored in the database. */
  box: SecretBox;
  /** SHA-256 of the admin token (from config, or generated and kept in the database; read at each call). */
  adminTokenHash: () => Promise<string>;
  /** State that is correct only while one process serves the database (src/coordination). */
  coordination: Coordination;
  /** Queueing deliveries: `ctx.outbox.enqueue(tx, …)` in the caller's unit of work (modules/delivery/outbox). */
  outbox: Outbox;
  /** Provider endpoints' health as this process sees it (modules/delivery/endpoint-health). */
  endpointHealth: EndpointHealth;
  /**
   * Removes what erasures kept for end pushes that have gone (modules/users); the delivery worker
   * calls it once such a push is recorded, so delivery need not import the users feature.
   */
  pruneErased: () => Promise<number>;
  /** The Prometheus metrics (modules/metrics), made on first use; delivery's included. */
  readonly metrics: IsletMetrics;
}
