import type { Database } from 'bun:sqlite';

/**
 * Moves WAL checkpoints off the thread that serves requests: SQLite would otherwise run one inside
 * whichever commit crosses `wal_autocheckpoint` (1,000 pages), a ~3 ms pause of every request
 * behind it. A worker thread with its own connection checkpoints every `intervalMs` instead. If
 * the worker fails, the connection's automatic checkpoints come back, so the WAL never grows
 * without bound (and `onError` hears why). Returns the function that stops the worker (and restores them).
 */
export function startCheckpointer(client: Database, path: string, options: { intervalMs?: number; onError?: (error: string) => void } = {}): () => Promise<void> {
  if (path === ':memory:') return async () => {};
  client.exec('PRAGMA wal_autocheckpoint = 0');
  const restore = () => client.exec('PRAGMA wal_autocheckpoint = 1000');
  // smol: a small heap, the worker holds nothing but one statement.
  const worker = new Worker(new URL('./checkpoint.worker.ts', import.meta.url).href, { smol: true } as WorkerOptions);
  worker.addEventListener('error', (event) => {
    restore();
    options.onError?.(event.message);
  });
  worker.postMessage({ path, intervalMs: options.intervalMs ?? 100 });
  (worker as Worker & { unref(): void }).unref();
  return async () => {
    worker.terminate();
    restore();
  };
}
