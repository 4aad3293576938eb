import { SQL } from 'bun';
import type { InstanceLock } from '../instance-lock';
import { clientOptions, type PostgresSettings } from './connection';

/**
 * The advisory lock (session level) a serving instance holds on PostgreSQL. Another key than the
 * migration lock's (migrate.ts). 0x69736c65745f69 = "islet_i".
 */
export const INSTANCE_LOCK_KEY = 0x69736c65745f69n;

/**
 * Marks the PostgreSQL database as served: the instance lock, taken on a connection of its own and
 * held while the server runs. The server drops it when that connection ends, so a process that
 * dies (even SIGKILL) leaves nothing to clean up. Until several instances can share a database
 * (issue 30), a second `serve` is refused. Resolves undefined when another session holds it.
 * @example const lock = await tryPostgresInstanceLock(settings); if (!lock) throw …; … lock.release();
 */
export async function tryPostgresInstanceLock(settings: PostgresSettings): Promise<InstanceLock | undefined> {
  const client = new SQL(settings.url, { ...clientOptions(settings, { max: 1 }), idleTimeout: 0 });
  try {
    const [row] = await client`SELECT pg_try_advisory_lock(${INSTANCE_LOCK_KEY}) AS locked`;
    if (row.locked === true) return { release: () => void client.close() };
  } catch (e) {
    await client.close();
    throw e;
  }
  await client.close();
  return undefined;
}
