import type { Tx } from '../../../db/store';
import { quietUntil, storedFrequencyCap, storedQuietHours, type FrequencyCap, type QuietHours } from '../../../lib/delivery-limits';
import type { DeliveryTarget } from '../../delivery/outbox/outbox';
import type { NotificationContent } from '../../delivery/message-content';
import type { SendTarget } from '../../devices/devices.types';
import { appsRepository } from '../../apps/apps.repository';
import { endUserLimitsRepository } from './end-user-limits.repository';
import { frequencyCapsRepository } from './frequency-caps.repository';

/** The reason a capped delivery is dropped with. */
export const FREQUENCY_CAP_REASON = 'frequency cap';

/** A send's device with what its limits decided: pending (absent), held for quiet hours, or dropped by a frequency cap. */
export type LimitedTarget = SendTarget & Pick<DeliveryTarget, 'status' | 'holdKind' | 'reason' | 'dueAt'>;

/** Whether a notification goes past quiet hours and frequency caps: time-sensitive and critical ones and silent pushes do. */
export const exempt = (content: NotificationContent) => content.silent === true || content.interruptionLevel === 'time-sensitive' || content.interruptionLevel === 'critical';

/**
 * Quiet hours and frequency caps (issue 48) of one send, decided as it fans out, in its
 * transaction `tx`: undefined when none can apply (an exempt content, an app without either and
 * none of whose end users has their own), so such a send costs one indexed lookup more.
 * `decide` takes the send's devices in the order they come (by end user) a chunk at a time:
 * - a frequency cap counts once per end user and send, however many devices they have: all their
 *   devices go, or all are dropped (reason `frequency cap`); an end user whose devices straddle two
 *   chunks keeps the first chunk's decision;
 * - quiet hours hold a device whose local time (its `timeZone`, else the app's default) is inside
 *   the window until it ends there, or until the notification expires (its ttl), whichever is
 *   first (delivery/holds/quiet-holds.ts releases or drops it then).
 * @example const limits = await sendLimits(tx, appId, content, now); const decided = limits ? await limits.decide(chunk) : chunk;
 */
export async function sendLimits(tx: Tx, appId: string, content: NotificationContent, now: number): Promise<{ decide(chunk: readonly SendTarget[]): Promise<LimitedTarget[]> } | undefined> {
  if (exempt(content)) return undefined;
  const app = await appsRepository(tx).find(appId);
  if (!app) return undefined;
  const own = await endUserLimitsRepository(tx).anyOwn(appId);
  const appQuiet = storedQuietHours(app.quietHours);
  const appCap = storedFrequencyCap(app.frequencyCap);
  if (!appQuiet && !appCap && !own) return undefined;
  const defaultZone = app.defaultTimeZone ?? 'UTC';
  const expiresAt = now + (content.ttlSeconds ?? 0) * 1000;
  /** When each window (its JSON and zone) ends, if now is inside it: computed once per send. */
  const ends = new Map<string, number | undefined>();
  const quietEnd = (window: QuietHours, zone: string) => {
    const key = `${window.start}-${window.end} ${zone}`;
    if (!ends.has(key)) ends.set(key, quietUntil(window, zone, now));
    return ends.get(key);
  };
  /** The last end user decided and whether their cap refused this send (their devices may go on in the next chunk). */
  let last: { endUserId: string; refused: boolean } | undefined;

  return {
    async decide(chunk) {
      const users = [...new Set(chunk.map((t) => t.endUserId))];
      const theirs = own ? await endUserLimitsRepository(tx).of(appId, users) : new Map<string, { quietHours: string | null; frequencyCap: string | null }>();
      const quietOf = (endUserId: string) => {
        const mine = theirs.get(endUserId)?.quietHours;
        return mine ? storedQuietHours(mine) : appQuiet;
      };
      const capped: { endUserId: string; cap: FrequencyCap }[] = [];
      for (const endUserId of users) {
        if (endUserId === last?.endUserId) continue;
        const mine = theirs.get(endUserId)?.frequencyCap;
        const cap = mine ? storedFrequencyCap(mine) : appCap;
        if (cap) capped.push({ endUserId, cap });
      }
      const refused = await frequencyCapsRepository(tx).count(appId, capped, now);
      if (last && !users.includes(last.endUserId)) last = undefined;
      const isRefused = (endUserId: string) => (endUserId === last?.endUserId ? last.refused : refused.has(endUserId));
      const decided = chunk.map((target): LimitedTarget => {
        if (isRefused(target.endUserId)) return { ...target, status: 'dropped', reason: FREQUENCY_CAP_REASON };
        const window = quietOf(target.endUserId);
        const zone = target.timeZone ?? defaultZone;
        const until = window ? quietEnd(window, zone) : undefined;
        if (until === undefined) return target;
        return { ...target, status: 'held', holdKind: 'quiet', dueAt: Math.min(until, expiresAt), reason: `quiet hours until ${window!.end} (${zone})` };
      });
      const lastUser = users.at(-1)!;
      last = { endUserId: lastUser, refused: isRefused(lastUser) };
      return decided;
    },
  };
}
