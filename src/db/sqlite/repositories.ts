import { broadcastsRepository } from './repositories/broadcasts';
import { endpointHoldsRepository } from './repositories/endpoint-holds';
import { deliveryRepository } from './repositories/deliveries';
import { outboxRepository } from './repositories/outbox';
import { webhookEventsRepository } from './repositories/webhook-events';
import type { Repositories } from '../store';
import { repositoriesOn } from '../repositories';
import { sqliteSql, type SqliteUnitsOfWork } from './sqlite-sql';
import type { Db } from './database';

/** Every repository on the SQLite connection `db`, its statements prepared once; `units`: the store's (see sqliteSql). */
export function sqliteRepositories(db: Db, units?: SqliteUnitsOfWork): Repositories {
  return repositoriesOn(sqliteSql(db.$client, units), {
    broadcasts: broadcastsRepository(db),
    endpointHolds: endpointHoldsRepository(db),
    deliveries: deliveryRepository(db),
    outbox: outboxRepository(db),
    webhookEvents: webhookEventsRepository(db),
  });
}
