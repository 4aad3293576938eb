import type { Repositories } from '../../store';
import type { Pg, PgScope } from '../query';
import { repositoriesOn } from '../../repositories';
import { postgresSql } from '../postgres-sql';
import { broadcastsPg } from './broadcasts';
import { endpointHoldsPg } from './endpoint-holds';
import { deliveryPg } from './delivery';
import { outboxPg } from './outbox';
import { webhookEventsPg } from './webhook-events';

/**
 * The PostgreSQL implementation of every repository on `q`: the pool (each method that needs
 * several statements opens its own transaction) or one transaction's connection (they join it),
 * claiming work for `owner` (this instance's id).
 */
export function postgresRepositories(q: Pg, begin?: <T>(job: (tx: Pg) => Promise<T>) => Promise<T>, owner: string | null = null): Repositories {
  const scope: PgScope = { q, atomic: begin ?? ((job) => job(q)), owner };
  return repositoriesOn(postgresSql(q, begin, owner), {
    broadcasts: broadcastsPg(scope),
    endpointHolds: endpointHoldsPg(scope),
    deliveries: deliveryPg(scope),
    outbox: outboxPg(scope),
    webhookEvents: webhookEventsPg(scope),
  });
}
