import { bootstrap } from '../bootstrap';
import type { AppContext } from '../context';
import { localCoordination } from '../coordination/local';
import { pgCluster } from '../coordination/postgres/cluster';
import { pgNotifications } from '../coordination/postgres/notifications';
import { pgWakeUps } from '../coordination/postgres/wake-ups';
import { postgresSettings } from '../db/postgres/connection';
import { silentLogger } from '../lib/logger';
import type { Harness } from './harness';

/**
 * Another instance on the harness's PostgreSQL database, on the harness's clock: its own store,
 * with wake-ups across instances (`heard: false`: wake-ups of its own only, so it neither tells
 * the others nor hears them, as when a notification is lost). Its stop is pushed onto `cleanups`.
 * @example const b = await instanceBeside(h, cleanups); await createApp(b).handle(request);
 */
export async function instanceBeside(h: Harness<AppContext>, cleanups: (() => Promise<unknown>)[], heard = true): Promise<AppContext> {
  const cluster = pgCluster(postgresSettings(h.ctx.config)!);
  const notifications = pgNotifications(cluster, silentLogger);
  const local = localCoordination({ databasePath: h.dbPath });
  const coordination = heard ? { ...local, wakeUps: pgWakeUps(notifications) } : local;
  const { ctx } = await bootstrap(h.ctx.config, { clock: h.clock, logger: silentLogger, coordination });
  cleanups.push(async () => {
    await ctx.db.close();
    await notifications.close();
    await cluster.close();
  });
  await notifications.listening();
  return ctx;
}
