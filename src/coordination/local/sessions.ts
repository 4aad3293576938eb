import type { SessionStore, StoredSession } from '../coordination';

/** Enough for every person who administers one installation; the oldest go first beyond it. */
const MAX_SESSIONS = 1000;

/**
 * Console sessions in memory: a restart signs everybody out, which is acceptable for an admin
 * console and keeps session ids out of the database. At most `maxSessions`: the oldest go first.
 * @example const store = localSessionStore(); store.set(sha256Hex(id), session, now);
 */
export function localSessionStore(maxSessions = MAX_SESSIONS): SessionStore {
  const byHash = new Map<string, StoredSession>();
  return {
    set(idHash, session, now) {
      byHash.set(idHash, session);
      for (const [hash, s] of byHash) if (s.expiresAt <= now) byHash.delete(hash);
      // Map iteration is insertion order: the first entries are the oldest sessions.
      for (const hash of byHash.keys()) {
        if (byHash.size <= maxSessions) break;
        byHash.delete(hash);
      }
    },
    get: (idHash) => byHash.get(idHash),
    delete: (idHash) => void byHash.delete(idHash),
  };
}
