import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';

// The tokens among these that already have a reload of this kind waiting (pending or held, not yet
// claimed by a worker): a new reload adds nothing for them. Through deliveries_notification_token
// (token_id, activity_id IS NULL), so only those tokens' own deliveries are read.
const waiting = statement<{ tokenId: number }>(
  (d) => `SELECT DISTINCT dl.token_id AS "tokenId" FROM deliveries dl JOIN messages m ON m.id = dl.message_id
           WHERE ${d.inList('dl.token_id', '$1', 'bigint')} AND dl.activity_id IS NULL AND dl.status IN ('pending', 'held') AND m.kind = $2`,
  { numbers: ['tokenId'] },
);
// PostgreSQL: two reloads at once (two instances) wait for each other on the tokens' rows, so the
// second sees the first one's deliveries; SQLite's one writer already serializes them.
const lockTokens = statement<{ id: number }>((d) => `SELECT id FROM tokens WHERE ${d.inList('id', '$1', 'bigint')} ORDER BY id${d.forUpdate}`);

/** What a WidgetKit reload reads beside the outbox: which tokens already have one waiting. */
export const widgetReloadsRepository = repository((sql: Sql) => ({
  /** The ids among `tokenIds` with a reload of `kind` still waiting to be sent; the tokens' rows are locked until the transaction ends. */
  async waiting(tokenIds: readonly number[], kind: 'widgets_reload' | 'controls_reload'): Promise<Set<number>> {
    if (tokenIds.length === 0) return new Set();
    if (sql.dialect.name === 'postgres') await sql.all(lockTokens, [tokenIds]);
    return new Set((await sql.all(waiting, [tokenIds, kind])).map((r) => r.tokenId));
  },
}));
