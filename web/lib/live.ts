import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * The console's one server-sent event stream (`/console/api/events`), opened while a live page is
 * on screen and shared by all of them. The server says `change` at most twice a second when
 * deliveries were queued or answered; pages then reload what they show. No polling.
 */
export type LiveState = 'connecting' | 'live' | 'offline';

const changeListeners = new Set<() => void>();
const stateListeners = new Set<(s: LiveState) => void>();
let source: EventSource | null = null;
let state: LiveState = 'connecting';
let retry: ReturnType<typeof setTimeout> | undefined;

function setState(next: LiveState) {
  state = next;
  for (const listener of stateListeners) listener(next);
}

function connect() {
  clearTimeout(retry);
  source = new EventSource('/console/api/events');
  setState('connecting');
  source.addEventListener('ready', () => {
    setState('live');
    // Whatever changed before the stream was there is shown now: after a drop, and also at the
    // first connect (a page that loaded its data just before would otherwise miss a change made
    // between its load and this moment, e.g. a delivery answered right after a start).
    for (const listener of changeListeners) listener();
  });
  source.addEventListener('change', () => {
    for (const listener of changeListeners) listener();
  });
  source.addEventListener('signed-out', () => disconnect());
  source.onerror = () => {
    // The browser retries a dropped stream by itself (CONNECTING); a refused one (CLOSED, e.g. a
    // restarted server that forgot the session) is retried here, less often.
    if (source?.readyState === EventSource.CLOSED) {
      source = null;
      setState('offline');
      retry = setTimeout(() => changeListeners.size > 0 && connect(), 10_000);
    } else setState('offline');
  };
}

function disconnect() {
  clearTimeout(retry);
  source?.close();
  source = null;
  setState('offline');
}

/**
 * Calls `onChange` when the server reports changes, while the component is mounted. Calls that
 * arrive while the previous one still runs are folded into one more call after it.
 * @example useLive(() => list.reload());
 */
export function useLive(onChange: () => Promise<unknown> | void): void {
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    let running = false;
    let again = false;
    const listener = async () => {
      if (running) return void (again = true);
      running = true;
      try {
        do {
          again = false;
          await latest.current();
        } while (again);
      } finally {
        running = false;
      }
    };
    changeListeners.add(listener);
    if (!source) connect();
    return () => {
      changeListeners.delete(listener);
      if (changeListeners.size === 0) disconnect();
    };
  }, []);
}

/** The stream's state, for the page's indicator. */
export function useLiveState(): LiveState {
  const [current, setCurrent] = useState(state);
  useEffect(() => {
    stateListeners.add(setCurrent);
    setCurrent(state);
    return () => void stateListeners.delete(setCurrent);
  }, []);
  return current;
}
