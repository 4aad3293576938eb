import type { Repositories } from '../store';
import type { Sql } from '../sql/sql';
import { activityStreamsRepository } from './activity-streams';
import { activityUsageRepository } from './activity-usage';
import { appsRepository } from './apps';
import { auditRepository } from './audit';
import { deliveryHistoryRepository } from './delivery-history';
import { endpointHoldsRepository } from './endpoint-holds';
import { metaRepository } from './meta';
import { metricsRepository } from './metrics';
import { tokensRepository } from './tokens';
import { webhooksRepository } from './webhooks';

/** The repositories still written once per dialect (src/db/sqlite/repositories, src/db/postgres/repositories), moving here one by one. */
export type PerDialect = Omit<
  Repositories,
  'activityStreams' | 'activityUsage' | 'apps' | 'audit' | 'deliveryHistory' | 'endpointHolds' | 'meta' | 'metrics' | 'tokens' | 'webhooks'
>;

/**
 * Every repository on `sql`: one implementation for both databases (the store's connection, or
 * one transaction's).
 */
export function repositoriesOn(sql: Sql, perDialect: PerDialect): Repositories {
  return {
    ...perDialect,
    activityStreams: activityStreamsRepository(sql),
    activityUsage: activityUsageRepository(sql),
    apps: appsRepository(sql),
    audit: auditRepository(sql),
    deliveryHistory: deliveryHistoryRepository(sql),
    endpointHolds: endpointHoldsRepository(sql),
    meta: metaRepository(sql),
    metrics: metricsRepository(sql),
    tokens: tokensRepository(sql),
    webhooks: webhooksRepository(sql),
  };
}
