import type { Database } from 'bun:sqlite';
import type { StorageHealth } from './storage-health';

/** Runs a write transaction and resolves with its result once it is committed. */
export type Write = <T>(job: () => T | Promise<T>) => Promise<T>;

/**
 * Group commit: the write transactions asked for during one turn of the event loop run one after
 * another inside a single SQLite transaction, each in its own savepoint, and are committed
 * together. Under load a commit (its WAL pages) is the largest cost of a small write, so many
 * requests share one. Each caller's promise settles only after that COMMIT, so an answer still
 * follows its write; a job that throws rolls back only its own savepoint; a failed COMMIT, or an
 * error after which SQLite rolled back the whole transaction (a full disk, an I/O error), fails
 * every job of the group, none of which was answered yet. A job may be async: the group's jobs run
 * one after another, each awaited inside its savepoint. It must await only statements on this
 * connection (they settle within the turn), never network I/O: the transaction stays open while it
 * waits, and nothing else may write on this connection meanwhile. `storage` learns of full disks and of
 * writes that reached the disk again.
 * @example const write = groupCommit(db.$client); await write(() => repo.insert(row));
 */
export function groupCommit(client: Database, storage?: StorageHealth): Write {
  type Job = { run: () => unknown; resolve: (value: any) => void; reject: (error: unknown) => void };
  let queue: Job[] = [];
  /** A group is between BEGIN and its end: the next one starts after it (a job that awaited longer than a turn). */
  let running = false;
  // IMMEDIATE: the write lock is taken before the first read. The delivery worker's outbox thread
  // writes through a connection of its own; a deferred transaction that read before it committed
  // could not write afterwards (SQLITE_BUSY_SNAPSHOT, no busy wait).
  const begin = client.query('BEGIN IMMEDIATE');
  const commit = client.query('COMMIT');
  const rollback = client.query('ROLLBACK');
  // Each job's savepoint, as three statements prepared once: bun:sqlite's nested transaction()
  // builds a wrapper per call and cost ~2.5 µs a job, these ~0.3 µs.
  const savepoint = client.query('SAVEPOINT job');
  const release = client.query('RELEASE job');
  const rollbackTo = client.query('ROLLBACK TO job');
  // Rows written on this connection so far: a group whose jobs all succeeded without writing (a
  // claim that found nothing) proves nothing about the storage.
  const totalChanges = client.query<{ n: number }, []>('SELECT total_changes() AS n');
  // While the outbox thread holds the write lock, SQLite's busy handler would put this thread to
  // sleep (1 ms and up); instead the group waits for a later turn of the event loop and grows
  // with the requests read meanwhile. After MAX_YIELD_MS it waits in SQLite as before.
  const busyTimeoutMs = client.query<{ timeout: number }, []>('PRAGMA busy_timeout').get()?.timeout ?? 0;
  // Not prepared once: SQLite sets the timeout when the PRAGMA is compiled, not when it runs.
  const impatient = { run: () => client.run('PRAGMA busy_timeout = 0') };
  const patient = { run: () => client.run(`PRAGMA busy_timeout = ${busyTimeoutMs}`) };
  let waitingSince: number | undefined;

  /** Takes the write lock; false when another connection holds it and the group may wait a turn. */
  const began = (): boolean => {
    if (waitingSince !== undefined && performance.now() - waitingSince >= MAX_YIELD_MS) {
      begin.run();
      waitingSince = undefined;
      return true;
    }
    impatient.run();
    try {
      begin.run();
      waitingSince = undefined;
      return true;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      waitingSince ??= performance.now();
      return false;
    } finally {
      patient.run();
    }
  };

  const flush = async () => {
    try {
      if (!began()) return void setImmediate(flush);
    } catch (error) {
      storage?.failed(error);
      const jobs = queue;
      queue = [];
      for (const job of jobs) job.reject(error);
      return;
    }
    const jobs = queue;
    queue = [];
    running = true;
    try {
      await runGroup(jobs);
    } finally {
      running = false;
      if (queue.length > 0) setImmediate(flush);
    }
  };

  const runGroup = async (jobs: Job[]) => {
    const changesBefore = totalChanges.get()!.n;
    const outcomes: { ok: boolean; value: unknown }[] = [];
    /** An error after which SQLite had rolled back the whole transaction, not just the savepoint. */
    let lost: unknown;
    try {
      for (const job of jobs) {
        let opened = false;
        try {
          savepoint.run();
          opened = true;
          let value = job.run();
          // Awaited only when the job is async: a synchronous job keeps the group in one call.
          if (value instanceof Promise) value = await value;
          release.run();
          outcomes.push({ ok: true, value });
        } catch (error) {
          storage?.failed(error);
          // On some errors (SQLITE_FULL, SQLITE_IOERR…) SQLite rolls back the whole transaction:
          // the jobs before this one are gone too, and the rest must not run outside it.
          if (!client.inTransaction) {
            lost = error;
            throw error;
          }
          // Undoes this job's writes only; ROLLBACK TO keeps the savepoint open, RELEASE ends it.
          if (opened) {
            rollbackTo.run();
            release.run();
          }
          outcomes.push({ ok: false, value: error });
        }
      }
      commit.run();
    } catch (error) {
      if (client.inTransaction) {
        try {
          rollback.run();
        } catch {
          // The connection rolls back by itself when it cannot; the error that matters is the first.
        }
      }
      storage?.failed(lost ?? error);
      for (const job of jobs) job.reject(lost ?? error);
      return;
    }
    // Writes of this group reached the disk.
    if (outcomes.some((o) => o.ok) && totalChanges.get()!.n > changesBefore) storage?.succeeded();
    jobs.forEach((job, i) => (outcomes[i]!.ok ? job.resolve(outcomes[i]!.value) : job.reject(outcomes[i]!.value)));
  };

  return <T>(run: () => T | Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      if (queue.push({ run, resolve, reject }) === 1 && !running) setImmediate(flush);
    });
}

/** How long a group yields turns of the event loop to another connection's write before it waits in SQLite. */
const MAX_YIELD_MS = 20;
