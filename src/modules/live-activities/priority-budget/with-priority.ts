import type { Tx } from '../../../db/store';
import type { LiveActivityContent } from '../../delivery/message-content';
import type { Outbox } from '../../delivery/outbox/outbox';
import type { RenderedPayloads } from '../../delivery/payloads';
import type { PriorityGroup } from './auto-priority';

/** The content of one priority group (absent: the content's own). */
export function withPriority(content: LiveActivityContent, priority: 5 | 10 | undefined): LiveActivityContent {
  return priority === undefined ? content : { ...content, priority };
}

/**
 * Queues one message per priority group, in `tx`: the body is the same, the `apns-priority` header
 * differs (latest wins per device all the same).
 */
export async function enqueueGroups(
  outbox: Outbox,
  tx: Tx,
  input: { appId: string; content: LiveActivityContent; now: number; rendered?: RenderedPayloads },
  groups: readonly PriorityGroup[],
): Promise<void> {
  for (const group of groups) await outbox.enqueue(tx, { ...input, content: withPriority(input.content, group.priority), targets: group.targets });
}
