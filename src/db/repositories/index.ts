import type { Repositories } from '../store';
import type { Sql } from '../sql/sql';
import { appsRepository } from './apps';
import { auditRepository } from './audit';
import { endpointHoldsRepository } from './endpoint-holds';
import { metaRepository } from './meta';
import { tokensRepository } from './tokens';

/** The repositories still written once per dialect (src/db/sqlite/repositories, src/db/postgres/repositories), moving here one by one. */
export type PerDialect = Omit<Repositories, 'apps' | 'audit' | 'endpointHolds' | 'meta' | 'tokens'>;

/**
 * Every repository on `sql`: one implementation for both databases (the store's connection, or
 * one transaction's).
 */
export function repositoriesOn(sql: Sql, perDialect: PerDialect): Repositories {
  return {
    ...perDialect,
    apps: appsRepository(sql),
    audit: auditRepository(sql),
    endpointHolds: endpointHoldsRepository(sql),
    meta: metaRepository(sql),
    tokens: tokensRepository(sql),
  };
}
