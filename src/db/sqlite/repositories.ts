import { activityStreamsRepository } from './repositories/activity-streams';
import { activityUsageRepository } from './repositories/activity-usage';
import { broadcastsRepository } from './repositories/broadcasts';
import { endpointHoldsRepository } from './repositories/endpoint-holds';
import { deliveryHistoryRepository } from './repositories/delivery-history';
import { deliveryRepository } from './repositories/deliveries';
import { outboxRepository } from './repositories/outbox';
import { metricsRepository } from './repositories/metrics';
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
    endpointHolds: endpointHoldsRepository(db),
    deliveries: deliveryRepository(db),
    deliveryHistory: deliveryHistoryRepository(db),
    metrics: metricsRepository(db),
    outbox: outboxRepository(db),
    webhookEvents: webhookEventsRepository(db),
    webhooks: webhooksRepository(db),
  });
}
