import { activityStreamsRepository } from './repositories/activity-streams';
import { activityUsageRepository } from './repositories/activity-usage';
import { broadcastsRepository } from './repositories/broadcasts';
import { deliveryHistoryRepository } from './repositories/delivery-history';
import { deliveryRepository } from './repositories/deliveries';
import { outboxRepository } from './repositories/outbox';
import { devicesRepository } from './repositories/devices';
import { idempotencyRepository } from './repositories/idempotency';
import { instancesRepository } from './repositories/instances';
import { liveActivitiesRepository } from './repositories/live-activities';
import { metricsRepository } from './repositories/metrics';
import { releasesRepository } from './repositories/releases';
import { webhookEventsRepository } from './repositories/webhook-events';
import { webhooksRepository } from './repositories/webhooks';
import type { Repositories } from '../store';
import { repositoriesOn } from '../repositories';
import { sqliteSql } from './sqlite-sql';
import type { Db } from './database';

/** Every repository on the SQLite connection `db`, its statements prepared once. */
export function sqliteRepositories(db: Db): Repositories {
  return repositoriesOn(sqliteSql(db.$client), {
    activityStreams: activityStreamsRepository(db),
    activityUsage: activityUsageRepository(db),
    broadcasts: broadcastsRepository(db),
    deliveries: deliveryRepository(db),
    deliveryHistory: deliveryHistoryRepository(db),
    devices: devicesRepository(db),
    idempotency: idempotencyRepository(db),
    instances: instancesRepository(db),
    liveActivities: liveActivitiesRepository(db),
    metrics: metricsRepository(db),
    outbox: outboxRepository(db),
    releases: releasesRepository(db),
    webhookEvents: webhookEventsRepository(db),
    webhooks: webhooksRepository(db),
  });
}
