import type { Repositories } from '../store';
import { repositoriesOn } from '../repositories';
import { sqliteSql, type SqliteUnitsOfWork } from './sqlite-sql';
import type { Db } from './database';

/** Every repository on the SQLite connection `db`, its statements prepared once; `units`: the store's (see sqliteSql). */
export function sqliteRepositories(db: Db, units?: SqliteUnitsOfWork): Repositories {
  return repositoriesOn(sqliteSql(db.$client, units));
}
