/**
 * PostgreSQL's failures that are the database's state, not the request's fault: out of space
 * (SQLSTATE 53100 disk full, 53000 insufficient resources, 53200 out of memory) answers 507 like
 * SQLite's full disk; a lost or refused connection (the server stopped or restarting) answers 503.
 * Neither is logged per request as an internal error.
 */
const STORAGE_STATES: Record<string, string> = {
  '53100': 'PostgreSQL is out of disk space',
  '53000': 'PostgreSQL lacks the resources to write',
  '53200': 'PostgreSQL is out of memory',
};

type PgError = { code?: unknown; errno?: unknown };

/** Why PostgreSQL cannot store anything, or undefined when the error is something else. */
export function postgresStorageFailure(error: unknown): string | undefined {
  const errno = (error as PgError | null)?.errno;
  return typeof errno === 'string' ? STORAGE_STATES[errno] : undefined;
}

/**
 * Whether the error is a connection the server closed or refused: Bun's ERR_POSTGRES_CONNECTION_*
 * codes, SQLSTATE class 08 (connection exception) and 57P01-57P03 (shutdown, crash, starting up).
 */
export function isPostgresUnavailable(error: unknown): boolean {
  const { code, errno } = (error as PgError | null) ?? {};
  if (typeof code === 'string' && (code.startsWith('ERR_POSTGRES_CONNECTION') || code === 'ERR_POSTGRES_CONNECTION_CLOSED')) return true;
  return typeof errno === 'string' && (errno.startsWith('08') || errno === '57P01' || errno === '57P02' || errno === '57P03');
}
