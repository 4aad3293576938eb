import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { forEachDatabase } from '../../../test-support/databases';
import { eventually } from '../../../test-support/eventually';
import { serveApp, type ServedApp } from '../../../test-support/served-app';
import { serverClient } from '../../../test-support/server-client';

forEachDatabase('message-list-e2e', () => {
  /**
   * Issue 50 points 3 and 4 through a served process (simulator delivery): one message list with
   * scheduled and cancelled sends, each with its state; the scheduled list's due times as the status
   * shows them; a message's deliveries by `messageId`, in the status's state names.
   */
  const APP = 'listed';
  let served: ServedApp;
  const { call, admin } = serverClient(() => served.server.url, 'sk_listed', 't');
  const register = async (endUserId: string, timeZone?: string) => {
    const res = await call('POST', `/api/apps/${APP}/devices`, { endUserId, platform: 'android', token: `fcm-${endUserId}-${crypto.randomUUID()}`, ...(timeZone && { timeZone }) });
    expect(res.status).toBe(200);
  };
  const send = async (body: Record<string, unknown>) => {
    const res = await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'remind', variables: { what: 'tea' }, ...body });
    expect(res.status).toBe(200);
    return res.body.messageId as string;
  };
  const list = async (q = '') => (await call('GET', `/api/apps/${APP}/notifications${q}`)).body;
  const status = async (id: string) => (await call('GET', `/api/apps/${APP}/notifications/${id}`)).body;
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
  // Two days ahead, 09:00 wall time: ahead in every zone.
  const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);

  beforeAll(async () => {
    served = await serveApp({ app: APP, secret: 'sk_listed' });
    const release = await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates: [{ slug: 'remind', title: 'Reminder', body: '{{what}}' }] });
    expect(release.status).toBe(201);
    await register('ada');
  }, 60_000);
  afterAll(() => served?.close(), 30_000);

  describe('the message list', () => {
    let now: string;
    let later: string;
    let cancelled: string;

    test('lists a send made at once, a scheduled one and a cancelled one newest first, each with its state, createdAt and scheduledFor', async () => {
      now = await send({});
      await Bun.sleep(5);
      const at = inAnHour();
      later = await send({ sendAt: at });
      await Bun.sleep(5);
      cancelled = await send({ sendAt: inAnHour() });
      expect((await call('DELETE', `/api/apps/${APP}/notifications/${cancelled}`)).status).toBe(200);

      const body = await eventually(async () => {
        const b = await list();
        expect(b.messages.find((m: { messageId: string }) => m.messageId === now)?.state).toBe('sent');
        return b;
      });
      expect(body.total).toBe(3);
      expect(body.messages.map((m: { messageId: string; state: string }) => [m.messageId, m.state])).toEqual([
        [cancelled, 'cancelled'],
        [later, 'scheduled'],
        [now, 'sent'],
      ]);
      const [c, l, n] = body.messages;
      expect(n).toMatchObject({ templateSlug: 'remind', releaseVersion: 1, scheduledFor: null, deliveries: { total: 1, sent: 1 } });
      expect(l).toMatchObject({ templateSlug: 'remind', releaseVersion: 1, scheduledFor: at, deliveries: { total: 0 } });
      expect(c.scheduledFor).toEqual(expect.any(String));
      // createdAt is when the send was made, as the status says, not when it goes.
      for (const m of body.messages) expect(m.createdAt).toBe((await status(m.messageId)).createdAt);
      expect(Date.parse(l.createdAt)).toBeLessThan(Date.parse(at) - 3_000_000);
    });

    test('pages of one make up the whole list', async () => {
      const whole = (await list()).messages.map((m: { messageId: string }) => m.messageId);
      const paged = [];
      for (let offset = 0; offset < 4; offset++) paged.push(...(await list(`?limit=1&offset=${offset}`)).messages.map((m: { messageId: string }) => m.messageId));
      expect(paged).toEqual(whole);
      expect((await list('?limit=2&offset=1')).messages.map((m: { messageId: string }) => m.messageId)).toEqual(whole.slice(1, 3));
    });

    test('a sendAtLocal: the scheduled list dates it by the parts its status shows, a zone reported under another name too', async () => {
      const local = await send({ sendAtLocal: `${day}T09:00` });
      // Registered after scheduling, under the name older iPhones give India's zone: it joins the 09:00 IST part.
      await register('ravi', 'Asia/Calcutta');
      const shown = (await status(local)).schedule.parts.filter((p: { status: string }) => p.status === 'scheduled').map((p: { dueAt: string }) => p.dueAt);
      expect(shown).toEqual([`${day}T03:30:00.000Z`, `${day}T09:00:00.000Z`]);
      const waiting = (await admin('GET', `/api/admin/apps/${APP}/scheduled-sends`)).body.scheduledSends.find((s: { messageId: string }) => s.messageId === local);
      expect(waiting).toMatchObject({ nextDueAt: shown[0], lastDueAt: shown.at(-1), local: true });
      const listed = (await list()).messages[0];
      expect(listed).toMatchObject({ messageId: local, state: 'scheduled', scheduledFor: shown[0] });
      expect((await call('DELETE', `/api/apps/${APP}/notifications/${local}`)).status).toBe(200);
      expect((await list()).messages[0].state).toBe('cancelled');
    });
  });

  describe("a message's deliveries", () => {
    test('?messageId= lists the deliveries of that message only, with the states of its status; ?status=sent and the old delivered alike', async () => {
      const first = await send({});
      const second = await send({});
      const deliveries = await eventually(async () => {
        const res = await admin('GET', `/api/admin/apps/${APP}/deliveries?messageId=${first}`);
        expect(res.body.deliveries.map((d: { status: string }) => d.status)).toEqual(['sent', 'sent']);
        return res.body;
      });
      expect(deliveries.total).toBe(2);
      expect((await status(first)).deliveries).toMatchObject({ total: 2, sent: 2 });
      const ids = (q: string) => admin('GET', `/api/admin/apps/${APP}/deliveries?messageId=${first}&${q}`);
      expect((await ids('status=sent')).body).toEqual(deliveries);
      expect((await ids('status=delivered')).body).toEqual(deliveries);
      expect((await ids('status=queued')).body.total).toBe(0);
      expect((await admin('GET', `/api/admin/apps/${APP}/deliveries?messageId=${second}`)).body.total).toBe(2);
      expect((await admin('GET', `/api/admin/apps/${APP}/deliveries?messageId=msg_unknown`)).body).toEqual({ deliveries: [], total: 0 });
      const bad = await admin('GET', `/api/admin/apps/${APP}/deliveries?status=arrived`);
      expect(bad.status).toBe(400);
      expect(bad.body.detail).toContain('status');
    });
  });
});
