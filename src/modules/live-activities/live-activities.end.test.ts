import { afterEach, expect, test } from 'bun:test';
import type { AppContext } from '../../context';
import { createHarness, type Harness } from '../../test-support/harness';
import { forEachDatabase } from '../../test-support/databases';
import { activitiesPath, connect, count, progress, start } from '../../test-support/live-activity-fixtures';
import { testRows } from '../../test-support/test-sql';
import { MAX_PAYLOAD_BYTES, payloadBytes } from '../delivery/payloads';
import { activityContent } from './live-activities.content';

forEachDatabase('ending a live activity with a final contentState', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());
  const PATH = activitiesPath('a1');

  const activity = async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    await connect(h, 'a1', 'u1');
    return (await start(h, 'a1', { ...progress, targetUsers: ['u1'] })).body.activities[0].id as string;
  };

  test('the size checked is that of the end as queued (with its timestamp and dismissal date): one that only a slimmer end would fit is refused, and nothing of it is written', async () => {
    const id = await activity();
    const now = h.clock.now();
    const data = (detail: string) => ({ id, templateSlug: 'progress-bar', attributes: progress.attributes, contentState: { progress: '100', detail } });
    // The longest detail whose end, built without its timestamp and dismissal date, would fit.
    let length = 3000;
    while (payloadBytes(activityContent('end', data('x'.repeat(length + 1)), { now })) <= MAX_PAYLOAD_BYTES) length++;
    const detail = 'x'.repeat(length);
    expect(payloadBytes(activityContent('end', data(detail), { now }))).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);

    const refused = await h.service('a1', 'DELETE', `${PATH}/${id}`, { contentState: { progress: '100', detail } });
    expect(refused.body).toEqual({ title: 'Bad Request', status: 400, detail: `payload exceeds ${MAX_PAYLOAD_BYTES} bytes` });
    const [row] = await testRows<{ state: string }>(h.ctx, 'SELECT state FROM activities WHERE id = ?', [id]);
    expect(row?.state).toBe('Active');
    expect(await count(h, 'messages')).toBe(1);

    const ended = await h.service('a1', 'DELETE', `${PATH}/${id}`, { contentState: { progress: '100', detail: 'x'.repeat(length - 100) } });
    expect(ended.body).toEqual({ success: true });
    expect(await count(h, 'messages')).toBe(2);
  });
});
