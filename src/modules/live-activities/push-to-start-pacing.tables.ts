import { defineTable, text } from '../../db/table';
import { devices } from '../devices/devices.tables';

/**
 * Push-to-start pacing (issue 47): per iOS device, when its latest push-to-starts are due (JSON
 * array of ms, ascending, at most `[push_to_start] per_device` of them). A start queued to the
 * device goes at the first time its window allows (push-to-start-pacing.ts); the wait is the
 * delivery's own `next_attempt_at`, so it survives a restart.
 */
export const { sqlite: pushToStartSlots, pg: pushToStartSlotsPg } = defineTable('push_to_start_slots', {
  deviceId: text().primaryKey().references(() => devices.id, { onDelete: 'cascade' }),
  slots: text().notNull(),
});
