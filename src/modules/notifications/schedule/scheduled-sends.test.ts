import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { AppContext } from '../../../context';
import { apnsToken } from '../../../test-support/apns-standin';
import { forEachDatabase } from '../../../test-support/databases';
import { createHarness, type Harness } from '../../../test-support/harness';
import { testRows } from '../../../test-support/test-sql';
import { retentionJob } from '../../scheduler/jobs/retention.job';
import { scheduledSendsConsumer } from './scheduled-sends.consumer';

// Each test makes dozens of requests on a fresh database: on PostgreSQL on a busy 2-core machine
// that passed 5 s (a bound on the machine, not on Islet: speed is measured in scripts/bench).
setDefaultTimeout(20_000);

forEachDatabase('scheduled sends', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  const SEND = '/api/apps/a1/notifications/send';
  // The harness clock: 2026-01-15T12:00:00Z.
  const NOW = Date.parse('2026-01-15T12:00:00Z');
  const welcome = { slug: 'welcome', title: 'Hi {{ name }}', body: 'Version one' };

  async function setup() {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    await h.admin('POST', '/api/admin/apps/a1/releases', { version: 1, status: 'Live', templates: [welcome] });
  }

  async function register(endUserId: string, label: string, timeZone?: string): Promise<string> {
    const res = await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId, platform: 'ios', token: apnsToken(label), ...(timeZone && { timeZone }) });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.device.id;
  }

  const send = (body: Record<string, unknown>) => h.service('a1', 'POST', SEND, { templateSlug: 'welcome', variables: { name: 'Ada' }, ...body });
  const status = (messageId: string) => h.service('a1', 'GET', `/api/apps/a1/notifications/${messageId}`);
  /** Moves the clock to `at` and runs one round of the consumer, as its pump would. */
  const runDueAt = async (at: number) => {
    h.clock.set(at);
    await scheduledSendsConsumer(h.ctx).drain();
  };
  const deliveries = () => testRows<{ device_id: string; content: string }>(h.ctx, 'SELECT d.device_id, m.content FROM deliveries d JOIN messages m ON m.id = d.message_id ORDER BY d.id');

  describe('sendAt', () => {
    test('nothing is queued before the time; at it, every device registered by then gets the template fixed at scheduling', async () => {
      await setup();
      const early = await register('u1', 'early');
      const res = await send({ sendAt: '2026-01-15T13:00:00+01:00' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ messageCount: 1, messageId: expect.stringMatching(/^msg_/), scheduledFor: '2026-01-15T12:00:00.000Z' });
      // A release made Live meanwhile does not change what was scheduled; a device registered meanwhile is reached.
      await h.admin('POST', '/api/admin/apps/a1/releases', { version: 2, status: 'Live', templates: [{ ...welcome, body: 'Version two' }] });
      const late = await register('u2', 'late');
      await runDueAt(NOW - 1);
      expect(await deliveries()).toEqual([]);
      expect((await status(res.body.messageId)).body.schedule).toEqual({
        scheduledFor: '2026-01-15T12:00:00.000Z',
        scheduled: 2,
        cancelled: 0,
        parts: [{ dueAt: '2026-01-15T12:00:00.000Z', status: 'scheduled', deliveries: 2, zones: null }],
      });
      await runDueAt(NOW + 500);
      const queued = await deliveries();
      expect(queued.map((d) => d.device_id).sort()).toEqual([early, late].sort());
      expect(JSON.parse(queued[0]!.content)).toMatchObject({ body: 'Version one', releaseVersion: 1, messageId: res.body.messageId });
      // Once: a second run finds nothing due.
      await runDueAt(NOW + 5000);
      expect(await deliveries()).toHaveLength(2);
      const after = (await status(res.body.messageId)).body;
      expect(after.deliveries.total).toBe(2);
      expect(after.schedule).toMatchObject({ scheduled: 0, parts: [{ status: 'sent', deliveries: 2 }] });
    });

    test('times are checked: 400 naming the field for a malformed one, one over a minute past, over 30 days ahead, or both given', async () => {
      await setup();
      await register('u1', 'd1');
      const detail = async (body: Record<string, unknown>) => {
        const res = await send(body);
        expect(res.status).toBe(400);
        return res.body.detail as string;
      };
      expect(await detail({ sendAt: '2026-01-15T13:00:00' })).toStartWith('sendAt must be an ISO 8601 time with an offset or Z');
      expect(await detail({ sendAt: 'tomorrow' })).toStartWith('sendAt must be an ISO 8601 time');
      expect(await detail({ sendAt: '2026-01-15T11:58:59Z' })).toBe('sendAt is more than a minute in the past (2026-01-15T11:58:59.000Z)');
      expect(await detail({ sendAt: '2026-02-14T12:00:01Z' })).toStartWith('sendAt is more than 30 days ahead');
      expect(await detail({ sendAtLocal: '2026-01-15T13:00Z' })).toStartWith('sendAtLocal must be a local date and time without offset');
      expect(await detail({ sendAtLocal: '2026-02-30T09:00' })).toStartWith('sendAtLocal must be a local date and time');
      expect(await detail({ sendAtLocal: '2026-01-14T09:00' })).toBe('sendAtLocal 2026-01-14T09:00 is more than a minute in the past in every time zone');
      expect(await detail({ sendAtLocal: '2026-03-01T09:00' })).toStartWith('sendAtLocal is more than 30 days ahead');
      expect(await detail({ sendAt: '2026-01-15T13:00:00Z', sendAtLocal: '2026-01-16T09:00' })).toStartWith('sendAt and sendAtLocal cannot both be given');
      // Within the minute's grace: accepted, and due at once.
      expect((await send({ sendAt: '2026-01-15T11:59:30Z' })).status).toBe(200);
      expect(await testRows(h.ctx, 'SELECT id FROM scheduled_sends')).toHaveLength(1);
    });

    test('a send whose server comes back past its ttlSeconds expires instead of going late', async () => {
      await setup();
      await register('u1', 'd1');
      const late = await send({ sendAt: '2026-01-15T12:10:00Z', ttlSeconds: 120 });
      const lost = await send({ sendAt: '2026-01-15T12:10:00Z', ttlSeconds: 60 });
      await runDueAt(Date.parse('2026-01-15T12:11:30Z'));
      expect((await status(late.body.messageId)).body.schedule.parts).toEqual([{ dueAt: '2026-01-15T12:10:00.000Z', status: 'sent', deliveries: 1, zones: null }]);
      expect((await status(lost.body.messageId)).body.schedule.parts).toEqual([]);
      expect(await testRows(h.ctx, 'SELECT status FROM scheduled_sends ORDER BY id')).toEqual([{ status: 'sent' }, { status: 'expired' }]);
    });

    test('a part that can no longer be rendered when due is marked failed and does not hold up the parts after it', async () => {
      await setup();
      await register('u1', 'd1');
      const broken = await send({ sendAt: '2026-01-15T12:10:00Z' });
      const fine = await send({ sendAt: '2026-01-15T12:10:01Z' });
      // As if a rule had become stricter since: its stored data now holds a key APNs reserves.
      await testRows(h.ctx, `UPDATE scheduled_sends SET send = replace(send, '"variables":', '"data":{"aps":"x"},"variables":') WHERE public_id = '${broken.body.messageId}'`);
      await runDueAt(Date.parse('2026-01-15T12:10:05Z'));
      expect(await testRows(h.ctx, 'SELECT status FROM scheduled_sends ORDER BY id')).toEqual([{ status: 'failed' }, { status: 'sent' }]);
      expect((await deliveries()).map((d) => JSON.parse(d.content).messageId)).toEqual([fine.body.messageId]);
    });

    test('retention removes the parts that went, were cancelled or expired; a waiting part stays', async () => {
      await setup();
      await register('u1', 'd1');
      const went = await send({ sendAt: '2026-01-15T12:10:00Z' });
      await runDueAt(Date.parse('2026-01-15T12:10:00Z'));
      const waiting = await send({ sendAt: '2026-02-10T12:00:00Z' });
      const later = Date.parse('2026-01-15T12:10:00Z') + (h.ctx.config.retention.deliveries_days + 1) * 86_400_000;
      h.clock.set(later);
      await retentionJob(h.ctx).run(later);
      expect(await testRows(h.ctx, 'SELECT public_id AS id, status FROM scheduled_sends')).toEqual([{ id: waiting.body.messageId, status: 'waiting' }]);
      expect(went.body.messageId).not.toBe(waiting.body.messageId);
      expect((await status(waiting.body.messageId)).body.schedule.scheduled).toBe(1);
    });
  });

  describe('sendAtLocal', () => {
    test("each device at the wall time in its own zone, a device without one in the app's default zone", async () => {
      await setup();
      const kiritimati = await register('u1', 'kiritimati', 'Pacific/Kiritimati');
      const la = await register('u2', 'la', 'America/Los_Angeles');
      const vienna = await register('u3', 'vienna');
      expect((await h.admin('PATCH', '/api/admin/apps/a1', { defaultTimeZone: 'europe/vienna' })).body.defaultTimeZone).toBe('Europe/Vienna');
      expect((await h.admin('PATCH', '/api/admin/apps/a1', { defaultTimeZone: 'Mars/Olympus' })).body.detail).toStartWith('defaultTimeZone must be an IANA time zone');
      const res = await send({ sendAtLocal: '2026-01-16T09:00', ttlSeconds: 3600 });
      // Its earliest part that reaches a device: Kiritimati's (UTC+14), not that of a zone nobody is in.
      expect(res.body).toEqual({ messageCount: 3, messageId: expect.stringMatching(/^msg_/), scheduledFor: '2026-01-15T19:00:00.000Z' });
      expect((await h.admin('GET', '/api/admin/apps/a1/scheduled-sends')).body).toEqual({
        scheduledSends: [{ messageId: res.body.messageId, templateSlug: 'welcome', nextDueAt: '2026-01-15T19:00:00.000Z', lastDueAt: '2026-01-16T17:00:00.000Z', local: true, localTime: '2026-01-16T09:00' }],
      });
      const schedule = (await status(res.body.messageId)).body.schedule;
      expect(schedule.scheduled).toBe(3);
      expect(schedule.parts.map((p: any) => [p.dueAt, p.deliveries, p.zones.includes('Pacific/Kiritimati') || p.zones.includes('America/Los_Angeles') || p.zones.includes('Europe/Vienna')])).toEqual([
        ['2026-01-15T19:00:00.000Z', 1, true],
        ['2026-01-16T08:00:00.000Z', 1, true],
        ['2026-01-16T17:00:00.000Z', 1, true],
      ]);
      await runDueAt(Date.parse('2026-01-15T19:00:00Z'));
      expect((await deliveries()).map((d) => d.device_id)).toEqual([kiritimati]);
      await runDueAt(Date.parse('2026-01-16T08:00:00Z'));
      expect((await deliveries()).map((d) => d.device_id)).toEqual([kiritimati, vienna]);
      // One public message: a later part's row (its content rendered for its own due time: an hour's
      // apns-expiration from 08:00, not from Kiritimati's 19:00 the day before) is a variant of the first's.
      const rows = await testRows<{ id: number; content: string }>(h.ctx, 'SELECT id, content FROM messages ORDER BY id');
      expect(rows.map((r) => JSON.parse(r.content).apnsExpiration)).toEqual([Date.parse('2026-01-15T20:00:00Z') / 1000, Date.parse('2026-01-16T09:00:00Z') / 1000]);
      expect(await testRows(h.ctx, 'SELECT message_id, main_message_id FROM notification_message_variants')).toEqual([{ message_id: rows[1]!.id, main_message_id: rows[0]!.id }]);
      const midway = (await status(res.body.messageId)).body;
      expect(midway.deliveries.total).toBe(2);
      expect(midway.schedule.scheduled).toBe(1);
      await runDueAt(Date.parse('2026-01-16T17:00:00Z'));
      expect((await deliveries()).map((d) => d.device_id)).toEqual([kiritimati, vienna, la]);
    });

    test('a localized template to an audience: each part reaches the audience in its zones, each device in its language', async () => {
      h = await createHarness({ database });
      await h.createApp({ id: 'a1' });
      const localized = { ...welcome, localizations: { de: { title: 'Hallo {{ name }}' } } };
      await h.admin('POST', '/api/admin/apps/a1/releases', { version: 1, status: 'Live', templates: [localized] });
      const device = async (endUserId: string, timeZone: string, locale: string, plan: string) => {
        const res = await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId, platform: 'ios', token: apnsToken(endUserId), timeZone, locale });
        await h.service('a1', 'PUT', `/api/apps/a1/users/${endUserId}`, { tags: { plan } });
        return res.body.device.id as string;
      };
      const goldVienna = await device('u1', 'Europe/Vienna', 'de-AT', 'gold');
      const goldLa = await device('u2', 'America/Los_Angeles', 'en-US', 'gold');
      await device('u3', 'Europe/Vienna', 'de-DE', 'free');
      const res = await send({ sendAtLocal: '2026-01-16T09:00', audience: { tags: { plan: 'gold' } } });
      expect(res.body).toMatchObject({ messageCount: 2, scheduledFor: '2026-01-16T08:00:00.000Z' });
      await runDueAt(Date.parse('2026-01-16T08:00:00Z'));
      await runDueAt(Date.parse('2026-01-16T17:00:00Z'));
      const queued = (await deliveries()).map((d) => [d.device_id, JSON.parse(d.content).title]);
      expect(queued).toEqual([
        [goldVienna, 'Hallo Ada'],
        [goldLa, 'Hi Ada'],
      ]);
      expect((await status(res.body.messageId)).body.deliveries.total).toBe(2);
    });

    test('a device registered later in a zone the runtime lists under another name gets the part of its wall time', async () => {
      await setup();
      const kolkata = await register('u1', 'kolkata', 'Asia/Kolkata');
      const res = await send({ sendAtLocal: '2026-01-16T09:00' });
      // Registered after scheduling, as an older iPhone names India's zone and a legacy name of Los Angeles's.
      const calcutta = await register('u2', 'calcutta', 'Asia/Calcutta');
      const usPacific = await register('u3', 'us-pacific', 'US/Pacific');
      expect((await status(res.body.messageId)).body.schedule.scheduled).toBe(3);
      await runDueAt(Date.parse('2026-01-16T03:30:00Z'));
      expect((await deliveries()).map((d) => d.device_id).sort()).toEqual([kolkata, calcutta].sort());
      await runDueAt(Date.parse('2026-01-16T17:00:00Z'));
      expect((await deliveries()).map((d) => d.device_id)).toContain(usPacific);
    });

    test('zones where the wall time has passed are skipped', async () => {
      await setup();
      await register('u1', 'kiritimati', 'Pacific/Kiritimati');
      const la = await register('u2', 'la', 'America/Los_Angeles');
      // 12:00 UTC: 02:00 next day in Kiritimati, 04:00 in Los Angeles.
      const res = await send({ sendAtLocal: '2026-01-15T09:00' });
      // 09:00 has passed in Kiritimati and in the default zone (UTC): Los Angeles's part is the first that reaches a device.
      expect(res.body).toMatchObject({ messageCount: 1, scheduledFor: '2026-01-15T17:00:00.000Z' });
      await runDueAt(Date.parse('2026-01-15T17:00:00Z'));
      expect((await deliveries()).map((d) => d.device_id)).toEqual([la]);
    });
  });

  describe('cancel', () => {
    test('cancels the parts not sent yet and the deliveries still queued: 200 with how many, then 409; 404 for an unknown or another app\'s id', async () => {
      await setup();
      await h.createApp({ id: 'other' });
      await register('u1', 'kiritimati', 'Pacific/Kiritimati');
      await register('u2', 'la', 'America/Los_Angeles');
      await register('u3', 'auckland', 'Pacific/Auckland');
      const res = await send({ sendAtLocal: '2026-01-16T09:00' });
      const path = `/api/apps/a1/notifications/${res.body.messageId}`;
      // Kiritimati's and Auckland's parts went: one delivery already sent, one still queued.
      await runDueAt(Date.parse('2026-01-15T20:00:00Z'));
      const [sent] = await testRows<{ id: number }>(h.ctx, 'SELECT id FROM deliveries ORDER BY id LIMIT 1');
      // As a worker records APNs's 200.
      await testRows(h.ctx, 'UPDATE deliveries SET status = ? WHERE id = ?', ['delivered', sent!.id]);
      expect((await h.service('other', 'DELETE', `/api/apps/other/notifications/${res.body.messageId}`)).body).toEqual({ title: 'Not Found', status: 404, detail: 'message not found' });
      expect((await h.service('a1', 'DELETE', '/api/apps/a1/notifications/msg_unknown')).status).toBe(404);
      const cancel = await h.service('a1', 'DELETE', path);
      // Los Angeles's part (one device) and the queued delivery.
      expect(cancel.body).toEqual({ messageId: res.body.messageId, cancelled: 2 });
      expect((await h.service('a1', 'DELETE', path)).body).toEqual({
        title: 'Conflict',
        status: 409,
        detail: 'nothing left to cancel: every delivery of the message has gone or was cancelled',
      });
      await runDueAt(Date.parse('2026-01-16T17:00:00Z'));
      expect(await deliveries()).toHaveLength(2);
      const after = (await status(res.body.messageId)).body;
      expect(after.deliveries).toMatchObject({ total: 2, sent: 1, dropped: 1, queued: 0 });
      expect(after.schedule).toMatchObject({ scheduled: 0, cancelled: 1 });
      expect(after.schedule.parts.map((p: any) => p.status)).toEqual(['sent', 'sent', 'cancelled']);
      // A send that went at once: what is still queued is cancelled, then nothing is left.
      const now = await send({});
      expect((await h.service('a1', 'DELETE', `/api/apps/a1/notifications/${now.body.messageId}`)).body).toEqual({ messageId: now.body.messageId, cancelled: 3 });
      expect((await status(now.body.messageId)).body.deliveries).toMatchObject({ total: 3, dropped: 3, queued: 0 });
      expect((await h.service('a1', 'DELETE', `/api/apps/a1/notifications/${now.body.messageId}`)).status).toBe(409);
    });
  });
});
