import type { Config } from '../config/config.schema';
import { postgresSettings } from '../db/postgres/connection';
import { createLogger, type Logger, type LogLevel } from '../lib/logger';
import type { Coordination } from './coordination';
import { localCoordination } from './local';
import { postgresCoordination } from './postgres';
import { pgCluster } from './postgres/cluster';

/**
 * The coordination a process runs with, chosen once at start from its configuration: several
 * instances on one PostgreSQL database (`[database] url`), else one server per SQLite file.
 */
export function coordinationFor(config: Config, logger: Logger = createLogger(config.log.level as LogLevel)): Coordination {
  const postgres = postgresSettings(config);
  if (!postgres) return localCoordination({ databasePath: config.database.path });
  return postgresCoordination(pgCluster(postgres), { leaseMs: config.cluster.lease_seconds * 1000, logger });
}
