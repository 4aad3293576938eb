import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { forEachDatabase } from '../../test-support/databases';
import { until } from '../../test-support/eventually';

forEachDatabase('metrics-e2e', (database) => {
  let dir: string;
  let server: SpawnedServer | undefined;
  afterEach(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The label sets of every sample of one family, e.g. [{method: 'GET', route: '/metrics', status: '200'}], without `islet_instance` (on every sample). */
  function samples(text: string, name: string): Record<string, string>[] {
    return text
      .split('\n')
      .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
      .map((l) => Object.fromEntries([...l.matchAll(/(\w+)="([^"]*)"/g)].filter((m) => m[1] !== 'islet_instance').map((m) => [m[1]!, m[2]!])));
  }

  describe('GET /metrics through a real server process', () => {
    test('after real traffic every family is there with bounded labels and promtool accepts the scrape; [metrics] token makes it 401 without the token', async () => {
      dir = mkdtempSync(join(tmpdir(), 'islet-metrics-'));
      server = await spawnServer(
        dir,
        `[server]\nport = 0\nhost = "127.0.0.1"\n[admin]\ntoken = "adm"\n[metrics]\ntoken = "scrape-me"\n` +
          `[database]\npath = "${join(dir, 'i.db')}"\n[scheduler]\ntick_seconds = 1\n[[apps]]\nid = "shop"\napp_secret = "sk_metrics_test"\n`,
      );
      const api = (method: string, path: string, body?: unknown) =>
        fetch(`${server!.url}${path}`, {
          method,
          headers: { 'x-service-key': 'sk_metrics_test', 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      for (const user of ['alice', 'bob']) {
        const res = await api('POST', '/api/apps/shop/devices', { endUserId: user, platform: 'android', token: `tok-${user}` });
        expect(res.status).toBe(200);
      }
      const started = (await (
        await api('POST', '/api/apps/shop/live-activities', { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '0' } })
      ).json()) as { activities: { id: string }[] };
      const ids = started.activities.map((a) => a.id);
      expect(ids).toHaveLength(2);
      for (const id of ids) expect((await api('PATCH', `/api/apps/shop/live-activities/${id}`, { contentState: { value: '1' } })).status).toBe(200);
      expect((await api('GET', '/api/apps/shop/live-activities/la_unknown')).status).toBe(404);
      expect((await api('GET', '/no/such/path')).status).toBe(404);

      const refused = await fetch(`${server.url}/metrics`);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('content-type')).toStartWith('application/problem+json');
      expect(((await refused.json()) as { detail: string }).detail).toContain('Bearer');
      expect((await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);

      const scrape = async () => {
        const res = await fetch(`${server!.url}/metrics`, { headers: { authorization: 'Bearer scrape-me' } });
        expect(res.status).toBe(200);
        return res.text();
      };
      // Wait for the worker to deliver the 4 pushes (2 starts, 2 updates) and a scheduler tick.
      let text = '';
      await until('the pushes are delivered and the quota job ran', async () => {
        text = await scrape();
        const delivered = samples(text, 'islet_deliveries_total').filter((s) => s.outcome === 'delivered').length;
        return delivered >= 2 && text.includes('islet_scheduler_job_runs_total{job="quota"');
      }, { intervalMs: 100 });

      const http = samples(text, 'islet_http_requests_total');
      expect(http).toContainEqual({ method: 'PATCH', route: '/api/apps/:appId/live-activities/:id', status: '200' });
      expect(http).toContainEqual({ method: 'GET', route: '/api/apps/:appId/live-activities/:id', status: '404' });
      expect(http).toContainEqual({ method: 'POST', route: '/api/apps/:appId/devices', status: '200' });
      expect(http).toContainEqual({ method: 'GET', route: 'unmatched', status: '404' });
      expect(samples(text, 'islet_http_request_duration_seconds_bucket').length).toBeGreaterThan(0);
      expect(samples(text, 'islet_deliveries_total')).toContainEqual({ app: 'shop', provider: 'simulator', kind: 'la_start', outcome: 'delivered' });
      expect(samples(text, 'islet_deliveries_total')).toContainEqual({ app: 'shop', provider: 'simulator', kind: 'la_update', outcome: 'delivered' });
      expect(text).toContain('# TYPE islet_delivery_queue_depth gauge');
      expect(samples(text, 'islet_provider_request_seconds_count')).toContainEqual({ provider: 'simulator' });
      expect(samples(text, 'islet_channel_state')).toContainEqual({ app: 'shop', provider: 'fcm', state: 'simulator' });
      // Live Activity pushes by the priority they went at (priority "auto": Android at 10, issue 47).
      expect(samples(text, 'islet_live_activity_pushes_total')).toContainEqual({ app: 'shop', event: 'update', priority: '10', chosen: 'auto' });
      // Every series names this instance: the id GET /api/admin/instances lists, leading the scheduler.
      const listed = await fetch(`${server.url}/api/admin/instances`, { headers: { authorization: 'Bearer adm' } });
      expect(listed.status).toBe(200);
      const { instances } = (await listed.json()) as { instances: { id: string; leader: boolean }[] };
      expect(instances).toEqual([expect.objectContaining({ leader: true })]);
      const id = instances[0]!.id;
      const series = text.split('\n').filter((l) => l && !l.startsWith('#'));
      expect(series.filter((l) => !l.includes(`islet_instance="${id}"`))).toEqual([]);
      expect(text).toContain(`islet_scheduler_leader{islet_instance="${id}"} 1`);
      expect(text).toContain(`islet_live_activities_active{app="shop",platform="android",islet_instance="${id}"} 2`);
      expect(samples(text, 'islet_scheduler_job_duration_seconds_count').map((s) => s.job)).toContain('ios-expiry');
      for (const family of ['islet_process_resident_memory_bytes', 'islet_nodejs_eventloop_lag_p99_seconds', 'islet_process_open_fds', 'islet_nodejs_handles_active'])
        expect(text).toContain(`\n${family}{islet_instance="${id}"} `);
      // Prometheus' own checker (Debian's prometheus package): names, types, suffixes, format.
      const promtool = Bun.spawn(['promtool', 'check', 'metrics'], { stdin: new TextEncoder().encode(text), stdout: 'pipe', stderr: 'pipe' });
      const [checkOut, checkErr, checkCode] = await Promise.all([new Response(promtool.stdout).text(), new Response(promtool.stderr).text(), promtool.exited]);
      expect({ code: checkCode, output: `${checkOut}${checkErr}` }).toEqual({ code: 0, output: '' });

      // No label names a device, an end user or an activity: not as a label, not as a value.
      const labelNames = new Set([...text.matchAll(/[{,](\w+)="/g)].map((m) => m[1]!));
      for (const name of labelNames) expect(['method', 'route', 'status', 'app', 'provider', 'kind', 'outcome', 'state', 'platform', 'job', 'le', 'version', 'major', 'minor', 'patch', 'space', 'type', 'quantile', 'islet_instance', 'event', 'priority', 'chosen']).toContain(name);
      for (const secretish of ['alice', 'bob', 'tok-alice', ...ids]) expect(text).not.toContain(secretish);
    }, 30_000);
  });
});
