import type { Database } from 'bun:sqlite';
import type { StorageHealth } from './storage-health';

/** Runs a write transaction and resolves with its result once it is committed. */
export type Write = <T>(job: () => T) => Promise<T>;

/**
 * Group commit: the write transactions asked for during one turn of the event loop run one after
 * another inside a single SQLite transaction, each in its own savepoint, and are committed
 * together. Under load a commit (its WAL pages) is the largest cost of a small write, so many
 * requests share one. Each caller's promise settles only after that COMMIT, so an answer still
 * follows its write; a job that throws rolls back only its own savepoint; a failed COMMIT fails
 * every job of the group, none of which was answered yet.
 * @example const write = groupCommit(db.$client); await write(() => repo.insert(row));
 */
export function groupCommit(client: Database, storage?: StorageHealth): Write {
  type Job = { run: () => unknown; resolve: (value: any) => void; reject: (error: unknown) => void };
  let queue: Job[] = [];

  const flush = () => {
    const jobs = queue;
    queue = [];
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      client.transaction(() => {
        for (const job of jobs) {
          try {
            // Nested inside the group's transaction, bun:sqlite runs this as a savepoint.
            outcomes.push({ ok: true, value: client.transaction(job.run)() });
          } catch (error) {
            outcomes.push({ ok: false, value: error });
          }
        }
      })();
    } catch (error) {
      storage?.failed(error);
      for (const job of jobs) job.reject(error);
      return;
    }
    storage?.succeeded();
    jobs.forEach((job, i) => (outcomes[i]!.ok ? job.resolve(outcomes[i]!.value) : job.reject(outcomes[i]!.value)));
  };

  return <T>(run: () => T) =>
    new Promise<T>((resolve, reject) => {
      if (queue.push({ run, resolve, reject }) === 1) setImmediate(flush);
    });
}
