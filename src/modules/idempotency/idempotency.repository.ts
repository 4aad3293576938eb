import type { IdempotencyRow } from './idempotency.types';
import { orphaned } from '../../db/postgres/claims';
import type { Dialect } from '../../db/sql/dialect';
import type { Param, Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';

/**
 * PostgreSQL only: a running key names the instance answering it (`claimed_by`, db/postgres/claims.ts),
 * so only that instance completes or releases it and start-up recovery frees only keys of instances
 * that died. SQLite has one serving process and no such column: the fragment is left out there.
 */
const leased = (d: Dialect, fragment: string) => (d.name === 'postgres' ? fragment : '');

const find = statement<IdempotencyRow>(
  `SELECT fingerprint, state, status, content_type AS "contentType", body, created_at AS "createdAt" FROM idempotency_keys WHERE app_id = $1 AND key = $2`,
  { numbers: ['createdAt'] },
);
// A row older than $5 counts as absent: it is taken over.
const claim = statement(
  (d) => `INSERT INTO idempotency_keys (app_id, key, fingerprint, state, created_at${leased(d, ', claimed_by')}) VALUES ($1, $2, $3, 'running', $4${leased(d, ', $6')})
            ON CONFLICT (app_id, key) DO UPDATE SET fingerprint = $3, state = 'running', status = NULL, content_type = NULL, body = NULL,
              created_at = $4${leased(d, ', claimed_by = $6')}
            WHERE idempotency_keys.created_at < $5`,
);
const complete = statement(
  (d) => `UPDATE idempotency_keys SET state = 'done', status = $1, content_type = $2, body = $3${leased(d, ', claimed_by = NULL')}
           WHERE app_id = $4 AND key = $5 AND state = 'running'${leased(d, ' AND claimed_by IS NOT DISTINCT FROM $6')}`,
);
const release = statement(
  (d) => `DELETE FROM idempotency_keys WHERE app_id = $1 AND key = $2 AND state = 'running'${leased(d, ' AND claimed_by IS NOT DISTINCT FROM $3')}`,
);
const releaseAllRunning = statement((d) => `DELETE FROM idempotency_keys WHERE state = 'running'${leased(d, ` AND ${orphaned('claimed_by')}`)}`);
const all = statement<{ appId: string; key: string; status: number | null }>(
  `SELECT app_id AS "appId", key, status FROM idempotency_keys ORDER BY created_at`,
);
const prune = statement('DELETE FROM idempotency_keys WHERE created_at < $1');

/** `idempotency_keys`. */
export const idempotencyRepository = repository((sql: Sql) => {
  // The claimant's parameter goes only where the statement names it (bun:sqlite refuses extra values).
  const claimant: Param[] = sql.dialect.name === 'postgres' ? [sql.owner] : [];
  return {
    find: (appId: string, key: string): Promise<IdempotencyRow | undefined> => sql.one(find, [appId, key]),
    /**
     * Takes the key for a new request (a row older than `expiredBefore` counts as absent).
     * Returns false when another row holds it: the caller reads that row.
     */
    claim: async (appId: string, key: string, fingerprint: string, now: number, expiredBefore: number): Promise<boolean> => (await sql.run(claim, [appId, key, fingerprint, now, expiredBefore, ...claimant])) > 0,
    async complete(appId: string, key: string, answer: { status: number; contentType: string | null; body: string }): Promise<void> {
      await sql.run(complete, [answer.status, answer.contentType, answer.body, appId, key, ...claimant]);
    },
    async release(appId: string, key: string): Promise<void> {
      await sql.run(release, [appId, key, ...claimant]);
    },
    /**
     * At start: no request is in flight, so a `running` row is one a stopped process left. PostgreSQL:
     * only keys of instances without a live lease (db/postgres/claims.ts).
     */
    releaseAllRunning: (): Promise<number> => sql.run(releaseAllRunning),
    /** Every key held, oldest first (what tests and an operator's check look at). */
    all: (): Promise<{ appId: string; key: string; status: number | null }[]> => sql.all(all),
    /** Deletes keys created before `before` (the retention job). */
    prune: (before: number): Promise<number> => sql.run(prune, [before]),
  };
});

export type IdempotencyRepository = ReturnType<typeof idempotencyRepository>;
