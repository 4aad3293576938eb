import type { Config } from '../config/config.schema';
import type { Coordination } from './coordination';
import { localCoordination } from './local';

/**
 * The coordination a process runs with, chosen once at start from its configuration: the place a
 * multi-instance implementation (PostgreSQL, `[database] url`) is added, not every caller.
 */
export function coordinationFor(config: Config): Coordination {
  return localCoordination({ databasePath: config.database.path });
}
