import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';
import type { DeliveryTarget } from '../delivery/outbox/outbox';
import type { TargetDevice } from '../devices/devices.types';

/** The pacing: at most `perDevice` push-to-starts to one device in any window of `windowMs`. */
export interface PushToStartPace {
  perDevice: number;
  windowMs: number;
}

// Locked for the unit of work on PostgreSQL: two starts to one device at once (two instances) take turns.
const read = statement<{ deviceId: string; slots: string }>((d) => `SELECT device_id AS "deviceId", slots FROM push_to_start_slots WHERE ${d.inList('device_id', '$1')}${d.forUpdate}`);
const write = statement(`INSERT INTO push_to_start_slots (device_id, slots) VALUES ($1, $2) ON CONFLICT (device_id) DO UPDATE SET slots = excluded.slots`);
// PostgreSQL: every device of a start to many end users in one statement (each device once).
const writeAllPostgres = statement(
  `INSERT INTO push_to_start_slots (device_id, slots) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (device_id) DO UPDATE SET slots = excluded.slots`,
);

const slotsRepository = repository((sql: Sql) => ({
  read: async (deviceIds: readonly string[]): Promise<Map<string, number[]>> => new Map((await sql.all(read, [deviceIds])).map((r) => [r.deviceId, JSON.parse(r.slots) as number[]])),
  /** Writes each device's slots (SQLite: a prepared row at a time, in process; PostgreSQL: one statement). */
  writeAll: async (slots: ReadonlyMap<string, readonly number[]>): Promise<void> => {
    if (sql.dialect.name === 'sqlite') for (const [deviceId, times] of slots) await sql.run(write, [deviceId, JSON.stringify(times)]);
    else await sql.run(writeAllPostgres, [[...slots.keys()], [...slots.values()].map((times) => JSON.stringify(times))]);
  },
}));

/**
 * When the next push-to-start to a device whose latest ones are due at `slots` (ascending) may go:
 * now, unless `perDevice` of them fall in the window before; then once the oldest of those leaves it.
 * @example nextSlot([0, 10, 20, 30, 40], 50, { perDevice: 5, windowMs: 100 }) // 100
 */
export function nextSlot(slots: readonly number[], now: number, pace: PushToStartPace): number {
  if (slots.length < pace.perDevice) return now;
  return Math.max(now, slots[slots.length - pace.perDevice]! + pace.windowMs);
}

/**
 * Paces a start's push-to-starts (issue 47): each iPhone target with a token gets the time its
 * window allows (`dueAt`, the delivery's `next_attempt_at`: held in the outbox, durably, until
 * then), and the device's slots record it, in the caller's transaction. Apple keeps a fixed
 * on-device push-to-start budget and drops starts past it without a word (forum thread 799505).
 */
export async function pacePushToStarts(tx: Sql, devices: readonly TargetDevice[], targets: DeliveryTarget[], now: number, pace: PushToStartPace): Promise<DeliveryTarget[]> {
  const paced = targets.filter((t, i) => devices[i]!.platform === 'ios' && t.status !== 'failed' && t.tokenId !== undefined);
  if (paced.length === 0) return targets;
  const repo = slotsRepository(tx);
  const known = await repo.read([...new Set(paced.map((t) => t.deviceId))]);
  const changed = new Map<string, number[]>();
  for (const target of paced) {
    const slots = known.get(target.deviceId) ?? [];
    const at = nextSlot(slots, now, pace);
    // Only the latest perDevice slots can hold the next one back.
    const kept = [...slots, at].sort((a, b) => a - b).slice(-pace.perDevice);
    known.set(target.deviceId, kept);
    changed.set(target.deviceId, kept);
    if (at > now) target.dueAt = at;
  }
  await repo.writeAll(changed);
  return targets;
}

/** The pacing the configuration sets (`[push_to_start]`). */
export const paceOf = (config: { push_to_start: { per_device: number; window_minutes: number } }): PushToStartPace => ({
  perDevice: config.push_to_start.per_device,
  windowMs: config.push_to_start.window_minutes * 60_000,
});
