import type { WakeUpListener, WakeUps, WakeUpTopic } from '../coordination';

/**
 * Wake-ups inside one process: `notify` calls this process's listeners synchronously. Writers
 * notify through `store.afterCommit`, so a listener never runs inside an open unit of work.
 * @example const w = localWakeUps(); const off = w.on('deliveries-queued', wake); w.notify('deliveries-queued'); off();
 */
export function localWakeUps(): WakeUps {
  const listeners = new Map<WakeUpTopic, Set<WakeUpListener>>();
  return {
    notify(topic, subject) {
      listeners.get(topic)?.forEach((listener) => listener(subject));
    },
    on(topic, listener) {
      const set = listeners.get(topic) ?? new Set();
      listeners.set(topic, set.add(listener));
      return () => void set.delete(listener);
    },
  };
}
