import { SQL } from 'bun';
import { clientOptions, type PostgresSettings } from '../../db/postgres/connection';
import type { Logger } from '../../lib/logger';
import type { WakeUpTopic } from '../coordination';
import type { PgCluster } from './cluster';

/** The one LISTEN/NOTIFY channel of an installation: every topic travels on it. */
export const EVENTS_CHANNEL = 'islet_events';

/**
 * A burst of the same topic and subject (a fan-out queues many times) sends one NOTIFY at once and
 * at most one more per this window: the others would only wake the same listeners again.
 */
export const COALESCE_MS = 10;

/** Hears a notification of another instance; `subject` undefined: anything of the topic may have changed. */
export type Heard = (subject: string | undefined) => void;

/**
 * Notifications between the instances of one PostgreSQL: `publish` reaches the subscribers of every
 * other instance (never this one's: a caller tells its own listeners itself, at once). Best effort:
 * a notification lost (PostgreSQL restarting, the listening connection down) is made up for by
 * telling every subscriber "anything may have changed" once listening resumes, and by polling.
 */
export interface PgNotifications {
  /** Sends `topic` (and a subject: an app id, a key) to the other instances, after the caller's commit. */
  publish(topic: string, subject?: string): void;
  /** Calls `listener` for each notification of `topic` from another instance. Returns the unsubscribe. */
  subscribe(topic: string, listener: Heard): () => void;
  /** Resolves once this instance listens (the first LISTEN acknowledged). */
  listening(): Promise<void>;
  /** Stops listening and sending. */
  close(): Promise<void>;
}

/** Sender, topic and subject, tab-separated (ids and topics hold no tab). */
const encode = (sender: string, topic: string, subject = '') => `${sender}\t${topic}\t${subject}`;

function decode(payload: string): { sender: string; topic: string; subject: string | undefined } | undefined {
  const [sender, topic, subject] = payload.split('\t');
  return sender && topic ? { sender, topic, subject: subject || undefined } : undefined;
}

/** How often an instance pings itself through PostgreSQL, and after how long unheard it listens anew. */
export const PING_MS = 1000;
export const UNHEARD_MS = 3000;
/** The topic of those pings (no subscriber can take it: topics are names without a dot). */
const PING = '.ping';

/**
 * The notification channel of this instance on the cluster's database. Listens on a connection of
 * its own (Bun's `sql.listen`, which reconnects with a backoff and subscribes again by itself).
 * That backoff grows with the outage (after 30 s away it listened again only 30 s after the server
 * was back), so the instance also pings itself every PING_MS: when PostgreSQL answers but the
 * pings went unheard for UNHEARD_MS, it listens on a new connection at once.
 * @example const n = pgNotifications(cluster, logger); n.subscribe('credentials-changed', (s) => forget(s)); n.publish('credentials-changed', 'demo/apns');
 */
export function pgNotifications(cluster: PgCluster, logger: Logger): PgNotifications {
  const subscribers = new Map<string, Set<Heard>>();
  /** Keys (topic + subject) sent within the last window, and whether another publish came meanwhile. */
  const hot = new Map<string, { again: boolean; timer: ReturnType<typeof setTimeout> }>();
  let closed = false;
  let sendFailing = false;
  let acknowledged = 0;

  const tell = (topic: string, subject: string | undefined) => {
    for (const listener of subscribers.get(topic) ?? []) {
      try {
        listener(subject);
      } catch (e) {
        logger.error('a listener of notifications from other instances failed', { topic, error: e instanceof Error ? e.message : String(e) });
      }
    }
  };

  /** When this instance last heard its own ping (or began to listen). */
  let lastHeard = performance.now();
  const onNotify = (payload: string) => {
    const heard = decode(payload);
    if (!heard) return;
    if (heard.topic === PING) {
      if (heard.sender === cluster.id) lastHeard = performance.now();
    } else if (heard.sender !== cluster.id) tell(heard.topic, heard.subject);
  };

  const onListen = () => {
    if (++acknowledged === 1) return;
    // Whatever was sent while the connection was down is lost: every subscriber looks again.
    logger.info('listening to the other instances again (PostgreSQL connection back); what was missed meanwhile is looked at now');
    for (const topic of subscribers.keys()) tell(topic, undefined);
  };

  let listener: SQL | undefined;
  let subscription: Promise<SQL.ListenSubscription> | undefined;
  let listenFailing = false;
  let watchdog: ReturnType<typeof setInterval> | undefined;
  /** Listens (once); a first LISTEN that fails (PostgreSQL down at start) is tried again every second. */
  const listen = (): Promise<SQL.ListenSubscription> => {
    if (subscription) return subscription;
    listener ??= new SQL(cluster.settings.url, { ...clientOptions(cluster.settings, { max: 1 }), idleTimeout: 0 });
    lastHeard = performance.now();
    const attempt = listener.listen(EVENTS_CHANNEL, onNotify, onListen);
    subscription = attempt;
    attempt.then(
      () => (listenFailing = false),
      (e: unknown) => {
        if (subscription === attempt) subscription = undefined;
        if (!listenFailing) logger.warn('cannot listen to the other instances yet; polling until then', { error: e instanceof Error ? e.message : String(e) });
        listenFailing = true;
        if (!closed) setTimeout(() => void listen().catch(() => {}), 1000);
      },
    );
    watchdog ??= setInterval(ping, PING_MS);
    return attempt;
  };

  /** Pings itself; PostgreSQL answers but the pings stopped coming back: a new listening connection. */
  const ping = () => {
    cluster.sql.notify(EVENTS_CHANNEL, encode(cluster.id, PING)).then(
      () => {
        if (closed || !subscription || performance.now() - lastHeard < UNHEARD_MS) return;
        const stale = listener;
        listener = subscription = undefined;
        void stale?.close().catch(() => {});
        void listen().catch(() => {});
      },
      () => {},
    );
  };

  const send = (topic: string, subject: string | undefined) => {
    cluster.sql
      .notify(EVENTS_CHANNEL, encode(cluster.id, topic, subject))
      .then(() => {
        if (sendFailing) logger.info('notifications to the other instances are sent again');
        sendFailing = false;
      })
      .catch((e: unknown) => {
        // They poll meanwhile; one line per outage, not per notification.
        if (!sendFailing) logger.warn('a notification to the other instances failed; they pick up the work at their next poll', { topic, error: e instanceof Error ? e.message : String(e) });
        sendFailing = true;
      });
  };

  const windowEnds = (key: string, topic: string, subject: string | undefined) => () => {
    const entry = hot.get(key)!;
    if (!entry.again || closed) return void hot.delete(key);
    entry.again = false;
    send(topic, subject);
    entry.timer = setTimeout(windowEnds(key, topic, subject), COALESCE_MS);
  };

  return {
    publish(topic, subject) {
      if (closed) return;
      const key = `${topic}\t${subject ?? ''}`;
      const entry = hot.get(key);
      if (entry) return void (entry.again = true);
      send(topic, subject);
      hot.set(key, { again: false, timer: setTimeout(windowEnds(key, topic, subject), COALESCE_MS) });
    },
    subscribe(topic, listener) {
      const set = subscribers.get(topic) ?? new Set();
      subscribers.set(topic, set.add(listener));
      void listen().catch(() => {});
      return () => void set.delete(listener);
    },
    listening: async () => void (await listen()),
    async close() {
      closed = true;
      clearInterval(watchdog);
      for (const { timer } of hot.values()) clearTimeout(timer);
      hot.clear();
      const current = subscription;
      subscription = undefined;
      await (await current?.catch(() => undefined))?.unlisten();
      await listener?.close();
      listener = undefined;
    },
  };
}

/**
 * Tells the instances serving a database once, from a process that serves none (the command line:
 * `islet admin-token reset`). Every instance hears it: the sender is no instance.
 * @example await notifyInstances(settings, 'admin-token-changed');
 */
export async function notifyInstances(settings: PostgresSettings, topic: WakeUpTopic, subject?: string): Promise<void> {
  const sql = new SQL(settings.url, clientOptions(settings, { max: 1 }));
  try {
    await sql.notify(EVENTS_CHANNEL, encode('command-line', topic, subject));
  } finally {
    await sql.close();
  }
}
