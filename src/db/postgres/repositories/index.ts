import type { Repositories } from '../../store';
import type { Pg } from '../query';
import { repositoriesOn } from '../../repositories';
import { postgresSql } from '../postgres-sql';

/**
 * Every repository (src/db/repositories) on PostgreSQL's `q`: the pool (each method that needs
 * several statements opens its own transaction) or one transaction's connection (they join it),
 * claiming work for `owner` (this instance's id).
 */
export function postgresRepositories(q: Pg, begin?: <T>(job: (tx: Pg) => Promise<T>) => Promise<T>, owner: string | null = null): Repositories {
  return repositoriesOn(postgresSql(q, begin, owner));
}
