import type { Db } from '../database';
import { promised } from '../promised';
import type { MetaRepository } from '../../../modules/auth/meta.repository';

/** The `meta` table: settings the database keeps about itself (the admin token's hash, the master key's canary). */
function metaStatements(db: Db) {
  const client = db.$client;
  const get = client.query<{ value: string }, [string]>('SELECT value FROM meta WHERE key = ?');
  const put = client.query<never, [string, string]>('INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2');
  return {
    get: (key: string): string | undefined => get.get(key)?.value,
    put(key: string, value: string): void {
      put.run(key, value);
    },
  };
}

/** The repository over metaStatements: every method returns a Promise. */
export const metaRepository = (db: Db): MetaRepository => promised(metaStatements(db));
