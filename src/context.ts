import type { Config } from './config/config.schema';
import type { SqliteStore } from './db/sqlite/store';
import type { Clock } from './lib/clock';
import type { Logger } from './lib/logger';
import type { SecretBox } from './lib/secrets';

/** Everything a module needs, built once by createApp's caller and passed down; no globals. */
export interface AppContext {
  config: Config;
  db: SqliteStore;
  clock: Clock;
  logger: Logger;
  /** Seals and opens secrets stored in the database. */
  box: SecretBox;
  /** SHA-256 of the admin token (from config, or generated and kept in the database; read at each call). */
  adminTokenHash: () => string;
}
