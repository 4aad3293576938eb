import type { ActivityStreamsRepository } from '../modules/activity-streams/activity-streams.repository';
import type { ActivityUsageRepository } from '../modules/live-activities/activity-usage.repository';
import type { AppsRepository } from '../modules/apps/apps.repository';
import type { AuditRepository } from '../modules/audit/audit.repository';
import type { BroadcastsRepository } from '../modules/broadcasts/broadcasts.repository';
import type { EndpointHoldsRepository } from '../modules/delivery/endpoint-health/endpoint-holds.repository';
import type { DeliveryHistoryRepository } from '../modules/delivery/admin/delivery-history.repository';
import type { DeliveryRepository } from '../modules/delivery/worker/delivery.repository';
import type { OutboxRepository } from '../modules/delivery/outbox/outbox.repository';
import type { DevicesRepository } from '../modules/devices/devices.repository';
import type { EndUsersRepository } from '../modules/users/end-users.repository';
import type { IdempotencyRepository } from '../modules/idempotency/idempotency.repository';
import type { InstancesRepository } from '../modules/live-activities/instances.repository';
import type { LiveActivitiesRepository } from '../modules/live-activities/live-activities.repository';
import type { LiveActivityTemplatesRepository } from '../modules/live-activities/live-activity-templates.repository';
import type { MetaRepository } from '../modules/auth/meta.repository';
import type { MetricsRepository } from '../modules/metrics/metrics.repository';
import type { ScheduledSendsRepository } from '../modules/notifications/scheduled-sends.repository';
import type { NotificationMessagesRepository } from '../modules/notifications/notification-messages.repository';
import type { NotificationOpensRepository } from '../modules/notifications/notification-opens.repository';
import type { ReleasesRepository } from '../modules/notifications/releases.repository';
import type { TokensRepository } from '../modules/tokens/tokens.repository';
import type { WebhookEventsRepository } from '../modules/webhooks/webhook-events.repository';
import type { WebhooksRepository } from '../modules/webhooks/webhooks.repository';

/**
 * Every repository of the application. Each method returns a Promise, so a database whose driver
 * is asynchronous (PostgreSQL) implements the same shape; the SQLite implementations do their work
 * synchronously inside.
 */
export interface Repositories {
  activityStreams: ActivityStreamsRepository;
  activityUsage: ActivityUsageRepository;
  apps: AppsRepository;
  audit: AuditRepository;
  broadcasts: BroadcastsRepository;
  endpointHolds: EndpointHoldsRepository;
  deliveries: DeliveryRepository;
  deliveryHistory: DeliveryHistoryRepository;
  devices: DevicesRepository;
  endUsers: EndUsersRepository;
  idempotency: IdempotencyRepository;
  instances: InstancesRepository;
  liveActivities: LiveActivitiesRepository;
  liveActivityTemplates: LiveActivityTemplatesRepository;
  meta: MetaRepository;
  metrics: MetricsRepository;
  notificationMessages: NotificationMessagesRepository;
  notificationOpens: NotificationOpensRepository;
  outbox: OutboxRepository;
  releases: ReleasesRepository;
  scheduledSends: ScheduledSendsRepository;
  tokens: TokensRepository;
  webhookEvents: WebhookEventsRepository;
  webhooks: WebhooksRepository;
}

/**
 * A transaction: the repositories bound to it. On SQLite, the one connection's repositories inside
 * the group commit's savepoint; on PostgreSQL, the same repositories on the transaction's connection.
 * Functions that must join their caller's transaction take it as a parameter.
 */
export type Tx = Repositories;

/** Whether the database can write, as the last write found out (see sqlite/storage-health.ts). */
export interface StorageStatus {
  /** Records a failed write; true when it was a storage failure (full disk, I/O error). */
  failed(error: unknown): boolean;
  /** A write committed. */
  succeeded(): void;
  /** Why writes fail, or null when they work. */
  check(): string | null;
}

/**
 * The data seam: units of work with an explicit transaction handle. Nothing outside `src/db` and
 * the repository implementations holds a connection or runs SQL.
 * @example await ctx.db.write(async (tx) => { await tx.apps.update(id, patch); await tx.audit.insert(row); });
 */
export interface Store {
  /**
   * Runs `job` in one write transaction and resolves with its result once it is committed; a job
   * that throws leaves nothing behind. The job awaits only `tx`'s repositories: no network I/O,
   * no timers, no other unit of work (on SQLite the connection's transaction stays open, and
   * nothing else may write on it, while the job waits).
   */
  write<T>(job: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Runs `job` with the store's repositories (those of `repos`) and no transaction, so reads that
   * belong together get no snapshot on either store: each statement sees the database as it is
   * when it runs, and a write landing between two of them shows in the second. SQLite runs them on
   * its one connection, inside the group commit's transaction when one is open (so they may see a
   * unit of work's rows before it commits); PostgreSQL takes a pooled connection per statement and
   * sees committed rows only. Reads that must agree go in `write`. The same rules as `write` for
   * what the job awaits.
   */
  read<T>(job: (r: Repositories) => Promise<T>): Promise<T>;
  /** The repositories for a single statement outside a unit of work. */
  readonly repos: Repositories;
  /** Whether writes reach the storage. */
  readonly storage: StorageStatus;
  /**
   * Runs `fn` once the unit of work running now (if any) has committed, else at once; never when it
   * rolls back. A wake-up sent inside the job would otherwise reach the worker before the rows are
   * visible (PostgreSQL), or let it claim inside the open transaction on the same connection and
   * send a push whose write then rolls back (SQLite: the job's awaits let the worker's promise
   * chain run in the middle of the group).
   */
  afterCommit(fn: () => void): void;
  /** True when the database answers and every migration shipped with this build is applied. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}
