import type { KeyedLocks } from '../coordination';

/**
 * Per-key locks inside one process: a chain of promises per key, forgotten once it has settled.
 * @example const locks = localKeyedLocks(); await locks.run(`${appId}\n${key}`, () => put());
 */
export function localKeyedLocks(): KeyedLocks {
  const running = new Map<string, Promise<unknown>>();
  return {
    run(key, job) {
      const next = (running.get(key) ?? Promise.resolve()).then(job, job);
      const settled = next.catch(() => {});
      running.set(key, settled);
      void settled.then(() => running.get(key) === settled && running.delete(key));
      return next;
    },
  };
}
