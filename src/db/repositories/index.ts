import type { Repositories } from '../store';
import type { Sql } from '../sql/sql';
import { appsRepository } from './apps';
import { auditRepository } from './audit';
import { devicesRepository } from './devices';
import { idempotencyRepository } from './idempotency';
import { instancesRepository } from './instances';
import { liveActivitiesRepository } from './live-activities';
import { metaRepository } from './meta';
import { releasesRepository } from './releases';
import { tokensRepository } from './tokens';

/** The repositories still written once per dialect (src/db/sqlite/repositories, src/db/postgres/repositories), moving here one by one. */
export type PerDialect = Omit<Repositories, 'apps' | 'audit' | 'devices' | 'idempotency' | 'instances' | 'liveActivities' | 'meta' | 'releases' | 'tokens'>;

/**
 * Every repository on `sql`: one implementation for both databases (the store's connection, or
 * one transaction's).
 */
export function repositoriesOn(sql: Sql, perDialect: PerDialect): Repositories {
  return {
    ...perDialect,
    apps: appsRepository(sql),
    audit: auditRepository(sql),
    devices: devicesRepository(sql),
    idempotency: idempotencyRepository(sql),
    instances: instancesRepository(sql),
    liveActivities: liveActivitiesRepository(sql),
    meta: metaRepository(sql),
    releases: releasesRepository(sql),
    tokens: tokensRepository(sql),
  };
}
