import { isPostgresUnavailable, postgresStorageFailure } from './postgres/failures';
import { isStorageFailure, storageFailureDetail } from './sqlite/storage-health';

/**
 * The answer to a request the database could not serve, on either database: 507 when it cannot
 * store (SQLite's full disk or I/O error; PostgreSQL out of space), 503 when PostgreSQL is
 * unreachable. Undefined for any other error. Nothing of the request was stored in either case.
 */
export function databaseFailureAnswer(error: unknown): { status: 503 | 507; detail: string } | undefined {
  if (isStorageFailure(error)) return { status: 507, detail: storageFailureDetail(error) };
  const full = postgresStorageFailure(error);
  if (full) return { status: 507, detail: `${full}: the database cannot store anything more; nothing of this request was stored` };
  if (isPostgresUnavailable(error)) return { status: 503, detail: 'the database is unreachable; nothing of this request was stored: try again shortly' };
  return undefined;
}
