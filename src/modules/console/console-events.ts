import type { WakeUps } from '../../coordination/coordination';

/** At most this often a client hears "something changed": a fan-out of 100,000 deliveries is a few events, not 100,000. */
export const MIN_EVENT_GAP_MS = 500;
/** A comment line this often keeps proxies from closing a quiet stream, and notices a signed-out session. */
export const HEARTBEAT_MS = 15_000;

const open = new WeakMap<WakeUps, Set<() => void>>();

/**
 * A server-sent event stream for one console page: `ready` once connected, then `change` when
 * deliveries were queued, released or answered (coalesced to one per MIN_EVENT_GAP_MS), and
 * `signed-out` (then the end) when `stillSignedIn` says no (asked at each heartbeat, and at once
 * when the admin token was reset). The page reloads what it shows on
 * `change`; the events carry no data, so they leak nothing across apps.
 */
export function eventStream(wakeUps: WakeUps, signal: AbortSignal, stillSignedIn: () => Promise<boolean>, timing = { gapMs: MIN_EVENT_GAP_MS, heartbeatMs: HEARTBEAT_MS }): Response {
  const encoder = new TextEncoder();
  let close = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let lastSent = 0;
      let pending: ReturnType<typeof setTimeout> | undefined;
      let closed = false;
      const write = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close();
        }
      };
      const send = () => {
        pending = undefined;
        lastSent = Date.now();
        write(`event: change\ndata: {}\n\n`);
      };
      const unsubscribe = wakeUps.on('deliveries-changed', () => {
        if (pending !== undefined) return;
        pending = setTimeout(send, Math.max(0, lastSent + timing.gapMs - Date.now()));
      });
      const check = async () => {
        if (await stillSignedIn().catch(() => true)) return write(`: ${Date.now()}\n\n`);
        write(`event: signed-out\ndata: {}\n\n`);
        close();
      };
      const heartbeat = setInterval(check, timing.heartbeatMs);
      // A reset admin token (through any instance, or the CLI) ends its sessions' streams at once.
      const unsubscribeToken = wakeUps.on('admin-token-changed', () => void check());
      close = () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        unsubscribeToken();
        clearInterval(heartbeat);
        clearTimeout(pending);
        streams.delete(close);
        signal.removeEventListener('abort', close);
        try {
          controller.close();
        } catch {
          // Already closed by the client.
        }
      };
      const streams = open.get(wakeUps) ?? new Set();
      open.set(wakeUps, streams.add(close));
      signal.addEventListener('abort', close);
      // The browser reconnects 3 s after a drop (EventSource's own retry), then the page reloads its data.
      write(`retry: 3000\nevent: ready\ndata: {}\n\n`);
    },
    cancel() {
      close();
    },
  });
  return new Response(body, {
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
  });
}

/** Ends every open stream following these wake-ups (the server is stopping: open streams would hold it). */
export function closeEventStreams(wakeUps: WakeUps): void {
  for (const close of open.get(wakeUps) ?? []) close();
}
