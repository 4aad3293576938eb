import { readFileSync } from 'node:fs';
import { ConfigError } from './config/config.load';
import type { Config } from './config/config.schema';
import { readMasterKey, resolveMasterKey } from './config/master-key';
import { readTlsFiles } from './config/tls-files';
import type { AppContext } from './context';
import { migrateStore, openStore, type OpenedStore } from './db/open';
import { SqliteStore } from './db/sqlite/store';
import { coordinationFor } from './coordination/choose';
import type { Coordination } from './coordination/coordination';
import { systemClock, type Clock } from './lib/clock';
import { createLogger, type Logger, type LogLevel } from './lib/logger';
import { SecretBox } from './lib/secrets';
import { readConfiguredCredentials, seedAppsFromConfig } from './modules/apps/apps.seed';
import { generateVapidKeys, importVapidKey } from './modules/delivery/providers/webpush/webpush.vapid';
import { readConfiguredWebPush, seedWebPushFromConfig } from './modules/web-push/web-push.seed';
import { liveActivityTemplatesService } from './modules/live-activities/live-activity-templates.service';
import { resolveAdminToken } from './modules/auth/admin-auth';
import { type MetaRepository, metaRepository } from './modules/auth/meta.repository';
import { credentialsReset } from './modules/delivery/endpoint-health/endpoint-reset';
import { Outbox } from './modules/delivery/outbox/outbox';
import { registerDeliveryMetrics } from './modules/delivery/delivery.metrics';
import { createMetrics, type IsletMetrics } from './modules/metrics/metrics';
import { EndpointHealth, type EndpointRecord } from './modules/delivery/endpoint-health/endpoint-health';
import { CANARY_KEY } from './db/master-key-canary';
import { endUsersRepository } from './modules/users/end-users.repository';

export interface BootstrapOptions {
  clock?: Clock;
  logger?: Logger;
  migrationsFolder?: string;
  /** The one `serve` took the instance's lease with; else the configuration's (coordinationFor). */
  coordination?: Coordination;
}

/**
 * WAL checkpoints of the API's connection (the request thread) only as a backstop: the outbox
 * thread's connection (outbox-thread.entry.ts, SQLite's default of 1,000 pages) checkpoints as it
 * records outcomes, off the thread that answers requests. Under update load (api-update.ts) the
 * request thread then spends ~10 µs less per update and p99 falls (17 -> 14 ms); both connections
 * at 10,000 pages made p99 45-50 ms (a long checkpoint stalls requests). While the outbox runs
 * inline (its thread not started yet, or failed) the WAL grows to ~40 MB before this one copies it;
 * with `[database] outbox_thread = false` this connection keeps SQLite's default.
 */
export const API_CONNECTION_CHECKPOINT_PAGES = 10_000;

/**
 * Opens and migrates the database (PostgreSQL with `[database] url`, under its migration lock), unlocks the secret store, resolves the admin token and applies
 * the configured apps: everything that must be true before the server listens.
 * Returns the generated admin token when one was made on this start (to print once, then
 * markAdminTokenShown), and whether it replaces one an earlier start made but never showed.
 */
export async function bootstrap(
  config: Config,
  options: BootstrapOptions = {},
): Promise<{ ctx: AppContext & { db: OpenedStore }; generatedAdminToken?: string; replacesUnshownAdminToken?: boolean }> {
  const logger = options.logger ?? createLogger(config.log.level as LogLevel);
  checkConfigForServe(config);
  // Before the store: PostgreSQL claims are made under this instance's id.
  const coordination = options.coordination ?? coordinationFor(config, logger);
  const db = openStore(config, logger, {
    checkpointPages: config.database.outbox_thread ? API_CONNECTION_CHECKPOINT_PAGES : undefined,
    instanceId: coordination.instance.id,
  });
  try {
    await migrateStore(db, options.migrationsFolder);
    const { key } = resolveMasterKey(config.security.master_key, config.database.path);
    const box = new SecretBox(key);
    await checkMasterKey(metaRepository(db.sql), box);
    const admin = await resolveAdminToken(metaRepository(db.sql), config.admin.token);
    const clock = options.clock ?? systemClock;
    const outbox = new Outbox(db, coordination.wakeUps);
    const endpointHealth = new EndpointHealth(clock, logger, coordination.endpointHealth<EndpointRecord>());
    let metrics: IsletMetrics | undefined;
    const ctx: AppContext & { db: OpenedStore } = {
      config,
      db,
      clock,
      logger,
      box,
      adminTokenHash: admin.current,
      coordination,
      outbox,
      endpointHealth,
      pruneErased: () => db.write((tx) => endUsersRepository(tx).pruneErased()),
      // Made on first use (createApp, the engine, the scheduler): a command that only migrates or checks starts no collectors.
      get metrics() {
        return (metrics ??= registerDeliveryMetrics(createMetrics({ coordination, db }), outbox, endpointHealth));
      },
    };
    const templates = liveActivityTemplatesService(ctx);
    // Instances started together would each find an app missing and create it (a duplicate key):
    // on PostgreSQL seeding runs under one transaction-scoped advisory lock, so later ones find it made.
    if (config.apps.length > 0)
      await coordination.keyedLocks('seed').run('apps', () => seedAppsFromConfig(ctx, credentialsReset(ctx), (appId, defs) => templates.seed(appId, defs)));
    await seedWebPushFromConfig(ctx, VAPID_KEYS);
    return { ctx, generatedAdminToken: admin.generated, replacesUnshownAdminToken: admin.replacesUnshown };
  } catch (e) {
    await db.close();
    if (!options.coordination) await coordination.close();
    throw e;
  }
}

/**
 * What `serve` refuses before it touches the database, also run by `check-config` so that both
 * answer the same: the master key, the TLS certificate and key, the PostgreSQL CA file, and every
 * file and endpoint the configured apps name. Throws ConfigError listing the problems.
 */
export function checkConfigForServe(config: Config): void {
  // With SQLite this is the only instance: nothing would ever send.
  if (!config.delivery.worker && config.database.url === undefined) throw new ConfigError(['delivery.worker = false needs [database] url: another instance on that PostgreSQL must send']);
  readMasterKey(config.security.master_key, config.database.path);
  readTlsFiles(config.server);
  const caFile = config.database.url === undefined ? undefined : config.database.ca_file;
  if (caFile) {
    try {
      readFileSync(caFile);
    } catch (e) {
      // Bun's client would only fail at its first query, in words that do not name the key.
      throw new ConfigError([`database.ca_file = "${caFile}": cannot read (${(e as NodeJS.ErrnoException).code ?? 'error'})`]);
    }
  }
  readConfiguredCredentials(config);
  readConfiguredWebPush(config, VAPID_KEYS);
}

/** How Web Push key pairs are made (web-push.service.ts KeyMaker). */
const VAPID_KEYS = { generate: generateVapidKeys, importPem: importVapidKey };

/** Refuses to start with a master key other than the one the database's secrets were sealed with. */
async function checkMasterKey(meta: MetaRepository, box: SecretBox): Promise<void> {
  const canary = await meta.get(CANARY_KEY);
  if (canary === undefined) {
    await meta.put(CANARY_KEY, box.seal('islet', CANARY_KEY));
    return;
  }
  try {
    box.open(canary, CANARY_KEY);
  } catch {
    throw new ConfigError(['the master key does not match this database: restore the islet.key file (or security.master_key) it was created with']);
  }
}

/** `bootstrap` for what reads the SQLite connection itself (the SQLite harness, benchmark seeding): refuses `[database] url`. */
export async function bootstrapSqlite(
  config: Config,
  options: BootstrapOptions = {},
): Promise<{ ctx: AppContext & { db: SqliteStore }; generatedAdminToken?: string; replacesUnshownAdminToken?: boolean }> {
  const opened = await bootstrap(config, options);
  const { db } = opened.ctx;
  if (db instanceof SqliteStore) return { ...opened, ctx: { ...opened.ctx, db } };
  await db.close();
  throw new Error('this needs the SQLite file: remove [database] url');
}
