import { activityStreamsRepository } from './repositories/activity-streams';
import { activityUsageRepository } from './repositories/activity-usage';
import { appsRepository } from './repositories/apps';
import { auditRepository } from './repositories/audit';
import { broadcastsRepository } from './repositories/broadcasts';
import { endpointHoldsRepository } from './repositories/endpoint-holds';
import { deliveryHistoryRepository } from './repositories/delivery-history';
import { deliveryRepository } from './repositories/deliveries';
import { outboxRepository } from './repositories/outbox';
import { devicesRepository } from './repositories/devices';
import { idempotencyRepository } from './repositories/idempotency';
import { instancesRepository } from './repositories/instances';
import { liveActivitiesRepository } from './repositories/live-activities';
import { metaRepository } from './repositories/meta';
import { metricsRepository } from './repositories/metrics';
import { releasesRepository } from './repositories/releases';
import { tokensRepository } from './repositories/tokens';
import { webhookEventsRepository } from './repositories/webhook-events';
import { webhooksRepository } from './repositories/webhooks';
import type { Repositories } from '../store';
import type { Db } from './database';

/** The SQLite implementation of every repository, its statements prepared once on `db`. */
export function sqliteRepositories(db: Db): Repositories {
  return {
    activityStreams: activityStreamsRepository(db),
    activityUsage: activityUsageRepository(db),
    apps: appsRepository(db),
    audit: auditRepository(db),
    broadcasts: broadcastsRepository(db),
    endpointHolds: endpointHoldsRepository(db),
    deliveries: deliveryRepository(db),
    deliveryHistory: deliveryHistoryRepository(db),
    devices: devicesRepository(db),
    idempotency: idempotencyRepository(db),
    instances: instancesRepository(db),
    liveActivities: liveActivitiesRepository(db),
    meta: metaRepository(db),
    metrics: metricsRepository(db),
    outbox: outboxRepository(db),
    releases: releasesRepository(db),
    tokens: tokensRepository(db),
    webhookEvents: webhookEventsRepository(db),
    webhooks: webhooksRepository(db),
  };
}
