import type { WakeUps, WakeUpTopic } from '../coordination';
import { localWakeUps } from '../local/wake-ups';
import type { PgNotifications } from './notifications';

/**
 * Wake-ups of every instance on one PostgreSQL: `notify` tells this process's listeners at once
 * (as the local wake-ups do) and the other instances' through a NOTIFY (notifications.ts: bursts
 * coalesced, a lost one made up for by polling and by a look at everything once listening resumes).
 * @example const w = pgWakeUps(notifications); w.on('deliveries-queued', wake); w.notify('deliveries-queued');
 */
export function pgWakeUps(notifications: PgNotifications): WakeUps {
  const local = localWakeUps();
  const relayed = new Set<WakeUpTopic>();
  return {
    notify(topic, subject) {
      local.notify(topic, subject);
      notifications.publish(topic, subject);
    },
    on(topic, listener) {
      if (!relayed.has(topic)) {
        relayed.add(topic);
        notifications.subscribe(topic, (subject) => local.notify(topic, subject));
      }
      return local.on(topic, listener);
    },
  };
}
