import { afterEach, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHarness, type Harness } from '../../test-support/harness';
import { forEachDatabase } from '../../test-support/databases';
import type { AppContext } from '../../context';

forEachDatabase('dashboard', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  describe('docs/grafana-dashboard.json', () => {
    test('every metric a panel queries is one /metrics exports; gauges read from the database are not summed over instances', async () => {
      h = await createHarness({ database });
      const exported = (await h.request('GET', '/metrics')).body as string;
      const families = new Set([...exported.matchAll(/^# TYPE (\w+) (\w+)$/gm)].map((m) => m[1]!));
      const dashboard = JSON.parse(readFileSync(join(import.meta.dir, '..', '..', '..', 'docs', 'grafana-dashboard.json'), 'utf8'));
      const exprs: string[] = dashboard.panels.flatMap((p: { targets: { expr: string }[] }) => p.targets.map((t) => t.expr));
      expect(exprs.length).toBeGreaterThan(10);
      const used = new Set(exprs.flatMap((e) => [...e.matchAll(/\bislet_\w+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, ''))));
      for (const name of used) expect({ name, exported: families.has(name) }).toEqual({ name, exported: true });
      // Every instance reads these from the one database: summed over instances they would count N times.
      const databaseWide = exprs.filter((e) => /\bislet_(delivery_queue_depth|live_activities_active|channel_state)\b/.test(e));
      expect(databaseWide.length).toBe(3);
      expect(databaseWide.filter((e) => !e.startsWith('max by ('))).toEqual([]);
    });
  });
});
