import type { Db } from '../database';
import { promised } from '../promised';
import { CHANNEL_DOWN_PATTERN } from '../../../modules/delivery/endpoint-health/channel-health';
import type { ChannelHoldsRepository } from '../../../modules/delivery/endpoint-health/channel-holds.repository';

/**
 * The outbox statements of channel health: deliveries held while their channel is down carry the
 * channel in their `reason` (channelDownReason), so a recovery releases exactly those, and one of
 * them at a time can be released to serve as the probe.
 */
function channelHoldsStatements(db: Db) {
  const client = db.$client;
  const releaseAll = client.query(
    `UPDATE deliveries SET status = 'pending', reason = NULL, next_attempt_at = ?1, updated_at = ?1
      WHERE status = 'held' AND app_id = ?2 AND reason = ?3`,
  );
  const releaseOne = client.query(
    `UPDATE deliveries SET status = 'pending', next_attempt_at = ?1, updated_at = ?1
      WHERE id = (SELECT id FROM deliveries WHERE status = 'held' AND app_id = ?2 AND reason = ?3 ORDER BY next_attempt_at LIMIT 1)`,
  );
  const releaseProvider = client.query(
    `UPDATE deliveries SET status = 'pending', reason = NULL, next_attempt_at = ?1, updated_at = ?1
      WHERE status = 'held' AND app_id = ?2 AND reason LIKE ?3`,
  );
  const recover = client.query(
    `UPDATE deliveries SET status = 'pending', reason = NULL, next_attempt_at = ?1, updated_at = ?1
      WHERE status = 'held' AND reason LIKE '${CHANNEL_DOWN_PATTERN}'`,
  );
  const count = client.query<{ reason: string; n: number }, [string]>(
    `SELECT reason, count(*) AS n FROM deliveries WHERE status = 'held' AND app_id = ? AND reason LIKE '${CHANNEL_DOWN_PATTERN}' GROUP BY reason`,
  );
  return {
    /** The channel is back: everything held for it is due now. Returns how many waited. */
    release(appId: string, reason: string, now: number): number {
      return releaseAll.run(now, appId, reason).changes;
    },
    /** Makes one held delivery of the channel due now, to serve as its probe. */
    releaseProbe(appId: string, reason: string, now: number): boolean {
      return releaseOne.run(now, appId, reason).changes > 0;
    },
    /** The app's credentials for the provider changed: whatever was held for any of its down channels is due now. */
    releaseProvider(appId: string, provider: 'apns' | 'fcm', now: number): number {
      return releaseProvider.run(now, appId, `${provider} channel down: %`).changes;
    },
    /** At start: channel health lives in memory, so whatever a previous process held for a down channel is due again. */
    recover(now: number): number {
      return recover.run(now).changes;
    },
    /** Deliveries held per down channel of an app, by their reason. */
    heldByReason(appId: string): Map<string, number> {
      return new Map(count.all(appId).map((r) => [r.reason, r.n]));
    },
  };
}

/** The repository over channelHoldsStatements: every method returns a Promise. */
export const channelHoldsRepository = (db: Db): ChannelHoldsRepository => promised(channelHoldsStatements(db));
