import type { Repositories } from '../store';
import type { Sql } from '../sql/sql';
import { activityStreamsRepository } from './activity-streams';
import { activityUsageRepository } from './activity-usage';
import { appsRepository } from './apps';
import { auditRepository } from './audit';
import { broadcastsRepository } from './broadcasts';
import { deliveriesRepository } from './deliveries';
import { deliveryHistoryRepository } from './delivery-history';
import { devicesRepository } from './devices';
import { endUsersRepository } from './end-users';
import { endpointHoldsRepository } from './endpoint-holds';
import { idempotencyRepository } from './idempotency';
import { instancesRepository } from './instances';
import { liveActivitiesRepository } from './live-activities';
import { liveActivityTemplatesRepository } from './live-activity-templates';
import { metaRepository } from './meta';
import { outboxRepository } from './outbox';
import { metricsRepository } from './metrics';
import { notificationMessagesRepository } from './notification-messages';
import { notificationOpensRepository } from './notification-opens';
import { releasesRepository } from './releases';
import { scheduledSendsRepository } from './scheduled-sends';
import { tokensRepository } from './tokens';
import { webhookEventsRepository } from './webhook-events';
import { webhooksRepository } from './webhooks';

/**
 * Every repository on `sql`: one implementation for both databases (the store's connection, or
 * one transaction's).
 */
export function repositoriesOn(sql: Sql): Repositories {
  return {
    activityStreams: activityStreamsRepository(sql),
    activityUsage: activityUsageRepository(sql),
    apps: appsRepository(sql),
    audit: auditRepository(sql),
    broadcasts: broadcastsRepository(sql),
    deliveries: deliveriesRepository(sql),
    deliveryHistory: deliveryHistoryRepository(sql),
    devices: devicesRepository(sql),
    endUsers: endUsersRepository(sql),
    endpointHolds: endpointHoldsRepository(sql),
    idempotency: idempotencyRepository(sql),
    instances: instancesRepository(sql),
    liveActivities: liveActivitiesRepository(sql),
    liveActivityTemplates: liveActivityTemplatesRepository(sql),
    meta: metaRepository(sql),
    metrics: metricsRepository(sql),
    notificationMessages: notificationMessagesRepository(sql),
    notificationOpens: notificationOpensRepository(sql),
    outbox: outboxRepository(sql),
    releases: releasesRepository(sql),
    scheduledSends: scheduledSendsRepository(sql),
    tokens: tokensRepository(sql),
    webhookEvents: webhookEventsRepository(sql),
    webhooks: webhooksRepository(sql),
  };
}
