import type { MetaRepository } from '../../modules/auth/meta.repository';
import type { Sql } from '../sql/sql';
import { statement } from '../sql/statement';

const get = statement<{ value: string }>('SELECT value FROM meta WHERE key = $1');
const put = statement('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2');

/** The `meta` table: settings the database keeps about itself (the admin token's hash, the master key's canary). */
export function metaRepository(sql: Sql): MetaRepository {
  return {
    get: async (key) => (await sql.one(get, [key]))?.value,
    async put(key, value) {
      await sql.run(put, [key, value]);
    },
  };
}
