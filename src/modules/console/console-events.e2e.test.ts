import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localWakeUps } from '../../coordination/local/wake-ups';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { eventStream } from './console-events';
import { forEachDatabase } from '../../test-support/databases';

forEachDatabase('console-events-e2e', (database) => {
  /** Reads server-sent events from a stream until `until` returns true; returns the event names seen. */
  async function readEvents(body: ReadableStream<Uint8Array>, until: (names: string[]) => boolean): Promise<string[]> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const names: string[] = [];
    let text = '';
    while (!until(names)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
      let end: number;
      while ((end = text.indexOf('\n\n')) !== -1) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const name = /^event: (.+)$/m.exec(block)?.[1];
        if (name) names.push(name);
      }
    }
    reader.releaseLock();
    return names;
  }

  describe('console live events (a real server process)', () => {
    let dir: string;
    let server: SpawnedServer;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'islet-events-'));
      server = await spawnServer(dir, `[server]\nport = 0\nhost = "127.0.0.1"\n[admin]\ntoken = "t"\n[database]\npath = "${join(dir, 'i.db')}"\n[[apps]]\nid = "live"\napp_secret = "sk_live_events"\n`);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    }, 30_000);

    test('needs a console session', async () => {
      const res = await fetch(`${server.url}/console/api/events`);
      expect(res.status).toBe(401);
      expect((await res.json()).detail).toBe('not signed in');
    });

    test('a signed-in page hears `ready`, then `change` when a send is queued and delivered; the server stops with the stream open', async () => {
      const signIn = await fetch(`${server.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: 't' }) });
      const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
      const res = await fetch(`${server.url}/console/api/events`, { headers: { cookie } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const body = res.body!;
      expect(await readEvents(body, (n) => n.includes('ready'))).toEqual(['ready']);
      const service = { 'content-type': 'application/json', 'x-service-key': 'sk_live_events' };
      await fetch(`${server.url}/api/apps/live/devices`, { method: 'POST', headers: service, body: JSON.stringify({ endUserId: 'ada', platform: 'android', token: 'fcm-live-1' }) });
      const start = await fetch(`${server.url}/api/apps/live/live-activities`, {
        method: 'POST',
        headers: service,
        body: JSON.stringify({ templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '10' } }),
      });
      expect(start.status).toBe(200);
      expect(await readEvents(body, (n) => n.includes('change'))).toContain('change');
      // Stopping does not wait for the open stream: it is ended, and the process exits cleanly.
      expect(await server.stop()).toBe(0);
    }, 60_000);
  });

  describe('eventStream', () => {
    test('coalesces a burst of changes into one event, and ends when the session is gone', async () => {
      const wakeUps = localWakeUps();
      let signedIn = true;
      const abort = new AbortController();
      const res = eventStream(wakeUps, abort.signal, async () => signedIn, { gapMs: 50, heartbeatMs: 100 });
      const body = res.body!;
      expect(await readEvents(body, (n) => n.length === 1)).toEqual(['ready']);
      for (let i = 0; i < 1000; i++) wakeUps.notify('deliveries-changed');
      signedIn = false;
      // One change for the burst, then the heartbeat notices the session is gone and the stream ends.
      expect(await readEvents(body, () => false)).toEqual(['change', 'signed-out']);
    });
  });
});
