import { one, run } from '../../db/postgres/query';
import type { SessionStore, StoredSession } from '../coordination';
import type { PgCluster } from './cluster';

/**
 * Console sessions in the `console_sessions` table, keyed by the SHA-256 of the session id (the
 * table never holds a live cookie): every instance reads the row at each console request, so a
 * session made or signed out on one instance counts on every other at once, and survives a
 * restart. Expired rows go at each sign-in (one indexed DELETE); there is no cap, since only
 * someone holding the admin token can add rows.
 * @example const store = pgSessionStore(cluster); await store.set(sha256Hex(id), session, now);
 */
export function pgSessionStore(cluster: PgCluster): SessionStore {
  return {
    async set(idHash, session, now) {
      await run(
        cluster.sql,
        `INSERT INTO console_sessions (id_hash, csrf_token, expires_at, token_hash) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id_hash) DO UPDATE SET csrf_token = EXCLUDED.csrf_token, expires_at = EXCLUDED.expires_at, token_hash = EXCLUDED.token_hash`,
        [idHash, session.csrfToken, session.expiresAt, session.tokenHash],
      );
      await run(cluster.sql, 'DELETE FROM console_sessions WHERE expires_at <= $1', [now]);
    },
    get: (idHash) =>
      one<StoredSession>(
        cluster.sql,
        'SELECT csrf_token AS "csrfToken", expires_at AS "expiresAt", token_hash AS "tokenHash" FROM console_sessions WHERE id_hash = $1',
        [idHash],
        ['expiresAt'],
      ),
    async delete(idHash) {
      await run(cluster.sql, 'DELETE FROM console_sessions WHERE id_hash = $1', [idHash]);
    },
  };
}
