
import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';

const get = statement<{ value: string }>('SELECT value FROM meta WHERE key = $1');
const put = statement('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2');

/** The `meta` table: settings the database keeps about itself (the admin token's hash, the master key's canary). */
export const metaRepository = repository((sql: Sql) => {
  return {
    get: async (key: string): Promise<string | undefined> => (await sql.one(get, [key]))?.value,
    async put(key: string, value: string): Promise<void> {
      await sql.run(put, [key, value]);
    },
  };
});

export type MetaRepository = ReturnType<typeof metaRepository>;
