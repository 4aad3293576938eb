import { randomBytes } from 'node:crypto';
import { all, run, valuesList, type Pg } from '../../db/postgres/query';
import type { StateMap } from '../coordination';
import type { PgCluster } from './cluster';

/** Where a set of shared maps tells the others which keys it wrote (payload: a Notice as JSON). */
export const SHARED_STATE_CHANNEL = 'islet_shared_state';

/** Keys named in one notice at most (a NOTIFY payload holds < 8000 bytes); more = "reload all". */
const KEYS_PER_NOTICE = 40;
/** Rows per statement of a flush. */
const ROWS_PER_STATEMENT = 500;

interface Notice {
  from: string;
  /** [map, key] pairs written; absent = reload every map. */
  keys?: [string, string][];
}

const id = (map: string, key: string) => `${map}\n${key}`;

/**
 * Maps of state that every instance on one PostgreSQL sees (rows of `shared_state`: map name, key,
 * JSON value). Reads answer from a local copy, synchronously. A write changes the copy at once and
 * is written back soon after (coalesced: the last value of a key wins), then a notice on
 * SHARED_STATE_CHANNEL names the keys and the other instances re-read those rows; a full reload
 * every `reloadMs` (and after the listener reconnects) is the backstop for a lost notice.
 * Instances writing one key at the same moment: the last write wins. Writes and reads go one at a
 * time, so a read never overwrites a local change that is not written yet.
 * @example const maps = sharedMaps(cluster, ['a', 'b'], 2000); const a = maps.map<number>('a'); await maps.ready;
 */
export function sharedMaps(cluster: PgCluster, names: readonly string[], reloadMs: number) {
  const self = randomBytes(6).toString('hex');
  const copies = new Map(names.map((name) => [name, new Map<string, unknown>()]));
  /** Changed here and not written yet: [map, key] by id. */
  let dirty = new Map<string, [string, string]>();
  let queue: Promise<unknown> = Promise.resolve();
  let flushing = false;
  let stopped = false;

  /** Runs jobs one at a time; a failed one (PostgreSQL away) does not stop the next. */
  const serially = (job: () => Promise<void>) => {
    const next = queue.then(job).catch(() => {});
    queue = next;
    return next;
  };

  const flush = () =>
    serially(async () => {
      flushing = false;
      if (dirty.size === 0) return;
      const written = dirty;
      dirty = new Map();
      try {
        await cluster.sql.begin(async (tx) => {
          const entries = [...written.values()];
          const present = entries.filter(([map, key]) => copies.get(map)!.has(key));
          const gone = entries.filter(([map, key]) => !copies.get(map)!.has(key));
          for (let i = 0; i < present.length; i += ROWS_PER_STATEMENT) await upsert(tx, present.slice(i, i + ROWS_PER_STATEMENT));
          for (let i = 0; i < gone.length; i += ROWS_PER_STATEMENT) await remove(tx, gone.slice(i, i + ROWS_PER_STATEMENT));
          const notice: Notice = entries.length <= KEYS_PER_NOTICE ? { from: self, keys: entries } : { from: self };
          await run(tx, 'SELECT pg_notify($1, $2)', [SHARED_STATE_CHANNEL, JSON.stringify(notice)]);
        });
      } catch (e) {
        // Written at the next flush (the reload timer asks for one), unless changed again meanwhile.
        for (const [k, v] of written) if (!dirty.has(k)) dirty.set(k, v);
        throw e;
      }
    });

  const upsert = (tx: Pg, entries: [string, string][]) =>
    run(
      tx,
      `INSERT INTO shared_state (map, key, value, updated_at)
       SELECT v.map, v.key, v.value, (extract(epoch FROM clock_timestamp()) * 1000)::bigint FROM (VALUES ${valuesList(entries.length, 3, (p) => `(${p[0]}::text, ${p[1]}::text, ${p[2]}::text)`)}) AS v (map, key, value)
       ON CONFLICT (map, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
      entries.flatMap(([map, key]) => [map, key, JSON.stringify(copies.get(map)!.get(key))]),
    );

  const remove = (tx: Pg, entries: [string, string][]) =>
    run(tx, `DELETE FROM shared_state WHERE (map, key) IN (VALUES ${valuesList(entries.length, 2, (p) => `(${p[0]}::text, ${p[1]}::text)`)})`, entries.flat());

  const changed = (map: string, key: string) => {
    dirty.set(id(map, key), [map, key]);
    if (!flushing && !stopped) {
      flushing = true;
      queueMicrotask(() => void flush());
    }
  };

  /** Puts rows read into the copies; keys changed here since (not written yet) keep their local value. */
  const apply = (asked: [string, string][] | undefined, rows: { map: string; key: string; value: string }[]) => {
    const found = new Set<string>();
    for (const row of rows) {
      found.add(id(row.map, row.key));
      if (!dirty.has(id(row.map, row.key))) copies.get(row.map)?.set(row.key, JSON.parse(row.value));
    }
    const absent = asked ?? [...copies].flatMap(([map, copy]) => [...copy.keys()].map((key): [string, string] => [map, key]));
    for (const [map, key] of absent) if (!found.has(id(map, key)) && !dirty.has(id(map, key))) copies.get(map)?.delete(key);
  };

  const reload = () =>
    serially(async () => {
      const placeholders = names.map((_, i) => `$${i + 1}`).join(', ');
      apply(undefined, await all(cluster.sql, `SELECT map, key, value FROM shared_state WHERE map IN (${placeholders})`, [...names]));
    });

  const reread = (keys: [string, string][]) =>
    serially(async () => {
      const mine = keys.filter(([map]) => copies.has(map));
      if (mine.length === 0) return;
      const rows = await all<{ map: string; key: string; value: string }>(
        cluster.sql,
        `SELECT map, key, value FROM shared_state WHERE (map, key) IN (VALUES ${valuesList(mine.length, 2, (p) => `(${p[0]}::text, ${p[1]}::text)`)})`,
        mine.flat(),
      );
      apply(mine, rows);
    });

  const onNotice = (payload: string) => {
    const notice = JSON.parse(payload) as Notice;
    if (notice.from === self) return;
    void (notice.keys ? reread(notice.keys) : reload());
  };

  // Loaded again after each reconnect of the listener: notices sent meanwhile were lost.
  const listening = cluster.sql.listen(SHARED_STATE_CHANNEL, onNotice, () => void reload());
  const ready = listening.then(() => reload());
  ready.catch(() => {});
  const timer = setInterval(() => {
    if (dirty.size > 0) void flush();
    void reload();
  }, reloadMs);
  timer.unref();

  return {
    /** Settles once the first load is done (or failed: the timer tries again). */
    ready,
    map<V>(name: string): StateMap<string, V> {
      const copy = copies.get(name) as Map<string, V> | undefined;
      if (!copy) throw new Error(`shared map ${name} was not declared`);
      return {
        get: (key) => copy.get(key),
        has: (key) => copy.has(key),
        set(key, value) {
          copy.set(key, value);
          changed(name, key);
          return this;
        },
        delete(key) {
          if (!copy.delete(key)) return false;
          changed(name, key);
          return true;
        },
        get size() {
          return copy.size;
        },
        entries: () => copy.entries(),
        values: () => copy.values(),
      };
    },
    /** Writes what is left, stops the timer and the listener. */
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await flush();
      await (await listening.catch(() => undefined))?.unlisten();
    },
  };
}

export type SharedMaps = ReturnType<typeof sharedMaps>;
