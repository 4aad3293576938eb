/**
 * Worker thread of src/db/checkpointer.ts: its own connection to the database, running a PASSIVE
 * WAL checkpoint at every interval. PASSIVE never waits for a writer or reader: it copies what it
 * can, and the request thread's next commit restarts the WAL once everything was copied.
 */
import { Database } from 'bun:sqlite';

declare const self: Worker;

self.onmessage = (event: MessageEvent<{ path: string; intervalMs: number }>) => {
  const { path, intervalMs } = event.data;
  const db = new Database(path, { readwrite: true, create: false });
  db.exec('PRAGMA busy_timeout = 5000');
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  setInterval(() => {
    try {
      checkpoint.run();
    } catch {
      // A full disk or an I/O error: the pages stay in the WAL and the next interval tries again;
      // the request thread's own writes report the storage's state (/readyz, 507).
    }
  }, intervalMs);
};
