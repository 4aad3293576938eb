import type { Config } from '../config/config.schema';
import { postgresSettings } from '../db/postgres/connection';
import type { Coordination } from './coordination';
import { localCoordination } from './local';

/**
 * The coordination a process runs with, chosen once at start from its configuration: the place a
 * multi-instance implementation (PostgreSQL, `[database] url`) is added, not every caller.
 */
export function coordinationFor(config: Config): Coordination {
  // PostgreSQL: still one serving process (the instance lock), until issue 30 shares the state.
  return localCoordination({ databasePath: config.database.path, postgres: postgresSettings(config) });
}
