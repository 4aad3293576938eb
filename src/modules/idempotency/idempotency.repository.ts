import type { IdempotencyRow } from './idempotency.types';
import { claims } from '../../queue/claims';
import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';

const find = statement<IdempotencyRow>(
  `SELECT fingerprint, state, status, content_type AS "contentType", body, created_at AS "createdAt" FROM idempotency_keys WHERE app_id = $1 AND key = $2`,
  { numbers: ['createdAt'] },
);
// A row older than $5 counts as absent: it is taken over.
const claim = statement(
  (d) => `INSERT INTO idempotency_keys (app_id, key, fingerprint, state, created_at${claims.insert(d, '$6').column}) VALUES ($1, $2, $3, 'running', $4${claims.insert(d, '$6').value})
            ON CONFLICT (app_id, key) DO UPDATE SET fingerprint = $3, state = 'running', status = NULL, content_type = NULL, body = NULL,
              created_at = $4${claims.take(d, '$6')}
            WHERE idempotency_keys.created_at < $5`,
);
const complete = statement(
  (d) => `UPDATE idempotency_keys SET state = 'done', status = $1, content_type = $2, body = $3${claims.end(d)}
           WHERE app_id = $4 AND key = $5 AND state = 'running'${claims.stillMine(d, '$6')}`,
);
const release = statement(
  (d) => `DELETE FROM idempotency_keys WHERE app_id = $1 AND key = $2 AND state = 'running'${claims.stillMine(d, '$3')}`,
);
const releaseAllRunning = statement((d) => `DELETE FROM idempotency_keys WHERE state = 'running'${claims.orphaned(d)}`);
const all = statement<{ appId: string; key: string; status: number | null }>(
  `SELECT app_id AS "appId", key, status FROM idempotency_keys ORDER BY created_at`,
);
const prune = statement('DELETE FROM idempotency_keys WHERE created_at < $1');

/**
 * `idempotency_keys`. A running key is claimed under the queue's claim protocol (src/queue/claims.ts):
 * on PostgreSQL it names the instance answering it, so only that instance completes or releases it
 * and start-up recovery frees only keys of instances that died.
 */
export const idempotencyRepository = repository((sql: Sql) => {
  return {
    find: (appId: string, key: string): Promise<IdempotencyRow | undefined> => sql.one(find, [appId, key]),
    /**
     * Takes the key for a new request (a row older than `expiredBefore` counts as absent).
     * Returns false when another row holds it: the caller reads that row.
     */
    claim: async (appId: string, key: string, fingerprint: string, now: number, expiredBefore: number): Promise<boolean> => (await sql.run(claim, claims.withOwner(sql, [appId, key, fingerprint, now, expiredBefore]))) > 0,
    async complete(appId: string, key: string, answer: { status: number; contentType: string | null; body: string }): Promise<void> {
      await sql.run(complete, claims.withOwner(sql, [answer.status, answer.contentType, answer.body, appId, key]));
    },
    async release(appId: string, key: string): Promise<void> {
      await sql.run(release, claims.withOwner(sql, [appId, key]));
    },
    /**
     * At start: no request is in flight, so a `running` row is one a stopped process left. PostgreSQL:
     * only keys of instances without a live lease (src/queue/claims.ts).
     */
    releaseAllRunning: (): Promise<number> => sql.run(releaseAllRunning),
    /** Every key held, oldest first (what tests and an operator's check look at). */
    all: (): Promise<{ appId: string; key: string; status: number | null }[]> => sql.all(all),
    /** Deletes keys created before `before` (the retention job). */
    prune: (before: number): Promise<number> => sql.run(prune, [before]),
  };
});

export type IdempotencyRepository = ReturnType<typeof idempotencyRepository>;
