import { afterEach, expect, test } from 'bun:test';
import type { AppContext } from '../../context';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness, type Harness } from '../../test-support/harness';
import { SimulatorTransport } from '../delivery/providers/simulator.transport';
import { BroadcastWorker } from './broadcasts.worker';

forEachDatabase('broadcast worker and the scheduler leadership', (database) => {
  let h: Harness<AppContext> | undefined;
  let worker: BroadcastWorker | undefined;
  afterEach(async () => {
    await worker?.stop();
    await h?.close();
  });

  test("only the leader's worker sends broadcast steps: a follower leaves them pending until it leads", async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    const made = await h.service('a1', 'POST', '/api/apps/a1/broadcasts', { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '0 - 0' } });
    expect(made.status).toBe(201);
    expect((await h.service('a1', 'PATCH', `/api/apps/a1/broadcasts/${made.body.id}`, { contentState: { value: '1 - 0' } })).status).toBe(200);
    let leading = false;
    let asked = 0;
    const leadership = { isLeader: async () => (asked++, leading), current: () => leading, release: async () => {} };
    const simulator = new SimulatorTransport();
    worker = new BroadcastWorker({ ...h.ctx, coordination: { ...h.ctx.coordination, leadership } }, { apns: simulator, fcm: simulator, simulator }, { pollMs: 10 });
    worker.start();
    // Several rounds go by as a follower.
    for (let i = 0; i < 500 && asked < 5; i++) await Bun.sleep(10);
    expect(asked).toBeGreaterThanOrEqual(5);
    const status = async () => (await h!.ctx.db.repos.broadcasts.ops(made.body.id)).map((o) => o.status);
    expect(await status()).toEqual(['pending']);
    leading = true;
    for (let i = 0; i < 500 && (await status())[0] === 'pending'; i++) await Bun.sleep(20);
    expect(await status()).toEqual(['done']);
    expect((await h.service('a1', 'GET', `/api/apps/a1/broadcasts/${made.body.id}`)).body.updatesSent).toBe(1);
  }, 30_000);
});
