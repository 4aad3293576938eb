import { activityStreamsRepository } from '../../modules/activity-streams/activity-streams.repository';
import { activityUsageRepository } from '../../modules/live-activities/activity-usage.repository';
import { appsRepository } from '../../modules/apps/apps.repository';
import { auditRepository } from '../../modules/audit/audit.repository';
import { broadcastsRepository } from './repositories/broadcasts';
import { channelHoldsRepository } from '../../modules/delivery/channel-holds.repository';
import { deliveryHistoryRepository } from '../../modules/delivery/delivery-history.repository';
import { deliveryRepository } from '../../modules/delivery/delivery.repository';
import { outboxRepository } from '../../modules/delivery/outbox.repository';
import { devicesRepository } from '../../modules/devices/devices.repository';
import { idempotencyRepository } from '../../modules/idempotency/idempotency.repository';
import { instancesRepository } from '../../modules/live-activities/instances.repository';
import { liveActivitiesRepository } from '../../modules/live-activities/live-activities.repository';
import { metaRepository } from '../../modules/auth/meta.repository';
import { metricsRepository } from '../../modules/metrics/metrics.repository';
import { releasesRepository } from '../../modules/notifications/releases.repository';
import { tokensRepository } from '../../modules/tokens/tokens.repository';
import { webhookEventsRepository } from '../../modules/webhooks/webhook-events.repository';
import { webhooksRepository } from '../../modules/webhooks/webhooks.repository';
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
    channelHolds: channelHoldsRepository(db),
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
