import type { Sql } from './sql';

/**
 * A feature's repository on an executor: `make` builds its methods on `sql` (the store's, or one
 * unit of work's), once per executor. Call sites name the repository and land on its SQL:
 * @example export const devicesRepository = repository((sql) => ({ find: (appId: string, id: string) => sql.one(byId, [appId, id]) }));
 *          await devicesRepository(tx).find(appId, id);
 */
export function repository<R>(make: (sql: Sql) => R): (sql: Sql) => R {
  const made = new WeakMap<Sql, R>();
  return (sql) => {
    let r = made.get(sql);
    if (r === undefined) made.set(sql, (r = make(sql)));
    return r;
  };
}
