import { broadcastsRepository } from './repositories/broadcasts';
import { devicesRepository } from './repositories/devices';
import { idempotencyRepository } from './repositories/idempotency';
import { instancesRepository } from './repositories/instances';
import { liveActivitiesRepository } from './repositories/live-activities';
import { releasesRepository } from './repositories/releases';
import type { Repositories } from '../store';
import { repositoriesOn } from '../repositories';
import { sqliteSql } from './sqlite-sql';
import type { Db } from './database';

/** Every repository on the SQLite connection `db`, its statements prepared once. */
export function sqliteRepositories(db: Db): Repositories {
  return repositoriesOn(sqliteSql(db.$client), {
    broadcasts: broadcastsRepository(db),
    devices: devicesRepository(db),
    idempotency: idempotencyRepository(db),
    instances: instancesRepository(db),
    liveActivities: liveActivitiesRepository(db),
    releases: releasesRepository(db),
  });
}
