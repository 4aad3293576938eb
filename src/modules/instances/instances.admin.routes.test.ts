import { expect, test } from 'bun:test';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness } from '../../test-support/harness';
import { VERSION } from '../../version';
import { until } from '../../test-support/eventually';

forEachDatabase('GET /api/admin/instances', (database) => {
  test('lists the one serving process as the leader, with ISO times; only for the admin', async () => {
    const h = await createHarness({ database });
    // What serve does: it takes its lease, and its scheduler asks for the lead.
    const lease = await h.ctx.coordination.instance.acquire();
    try {
      await h.ctx.coordination.leadership.isLeader();
      await until('this instance leads', () => h.ctx.coordination.leadership.current(), { intervalMs: 50 });
      const res = await h.admin('GET', '/api/admin/instances');
      expect(res.status).toBe(200);
      expect(res.body.instances).toHaveLength(1);
      const [self] = res.body.instances;
      expect(self).toMatchObject({ id: h.ctx.coordination.instance.id, version: VERSION, leader: true });
      expect(new Date(self.startedAt).toISOString()).toBe(self.startedAt);
      expect(Date.parse(self.lastSeen)).toBeGreaterThanOrEqual(Date.parse(self.startedAt));
      const anonymous = await h.request('GET', '/api/admin/instances');
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ title: 'Unauthorized', status: 401 });
    } finally {
      await lease?.release();
      await h.close();
    }
  }, 30_000);
});
