import type { MetaRepository } from '../../../modules/auth/meta.repository';
import { one, run, type PgScope } from '../query';

/** The `meta` table on PostgreSQL (see modules/auth/meta.repository.ts). */
export function metaPg({ q }: PgScope): MetaRepository {
  return {
    get: async (key) => (await one<{ value: string }>(q, 'SELECT value FROM meta WHERE key = $1', [key]))?.value,
    async put(key, value) {
      await run(q, 'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2', [key, value]);
    },
  };
}
