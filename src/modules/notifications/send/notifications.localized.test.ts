import { afterEach, expect, test } from 'bun:test';
import type { AppContext } from '../../../context';
import { apnsToken } from '../../../test-support/apns-standin';
import { forEachDatabase } from '../../../test-support/databases';
import { createHarness, type Harness } from '../../../test-support/harness';
import { testRows } from '../../../test-support/test-sql';
import { devicesRepository } from '../../devices/devices.repository';

forEachDatabase('localized notification templates', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  const RELEASES = '/api/admin/apps/a1/releases';
  const greeting = {
    slug: 'greeting',
    title: 'Hello {{name}}',
    body: 'Welcome back',
    subtitle: 'News',
    localizations: { de: { title: 'Hallo {{name}}', body: 'Willkommen zurück' }, 'de-at': { title: 'Servus {{name}}' }, fr: { subtitle: 'Nouvelles' } },
  };

  async function setup(templates: unknown[] = [greeting]) {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    const res = await h.admin('POST', RELEASES, { version: 1, status: 'Live', templates });
    expect(res.status).toBe(201);
    return res;
  }

  const register = async (endUserId: string, locale?: string) =>
    (await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId, platform: 'ios', token: apnsToken(endUserId), locale })).body.device.id as string;
  const send = (body: Record<string, unknown> = {}) => h.service('a1', 'POST', '/api/apps/a1/notifications/send', { templateSlug: 'greeting', variables: { name: 'Ada' }, ...body });
  /** Each device's rendered texts, through the message its delivery points at. */
  const received = async () =>
    Object.fromEntries(
      (await testRows<{ deviceId: string; content: string }>(h.ctx, 'SELECT d.device_id AS "deviceId", m.content FROM deliveries d JOIN messages m ON m.id = d.message_id')).map((r) => {
        const { title, body, subtitle, messageId } = JSON.parse(r.content);
        return [r.deviceId, { title, body, subtitle, messageId }];
      }),
    );

  test('the release shows the localizations under canonical tags, with their placeholders', async () => {
    const res = await setup();
    expect(res.body.templates[0]).toMatchObject({
      placeholders: ['name'],
      localizations: { de: greeting.localizations.de, 'de-AT': { title: 'Servus {{name}}' }, fr: { subtitle: 'Nouvelles' } },
    });
    await h.admin('POST', RELEASES, { version: 2 });
    const replaced = await h.admin('PUT', '/api/admin/apps/a1/releases/2/templates/x', { title: 't', body: 'b', localizations: { 'pt-br': { body: 'Olá {{who}}' } } });
    expect(replaced.status).toBe(201);
    expect(replaced.body).toMatchObject({ placeholders: ['who'], localizations: { 'pt-BR': { body: 'Olá {{who}}' } } });
    // A template without any has none in its record.
    const plain = await h.admin('PUT', '/api/admin/apps/a1/releases/2/templates/x', { title: 't', body: 'b' });
    expect(plain.body.localizations).toBeUndefined();
  });

  test('an invalid localization answers 400 naming the tag, and nothing is written', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    const create = (localizations: unknown) => h.admin('POST', RELEASES, { version: 1, templates: [{ slug: 's', title: 't', body: 'b', localizations }] });
    const bad = await create({ de: { title: 'x' }, en_US: { title: 'x' } });
    expect(bad.body).toEqual({
      title: 'Bad Request',
      status: 400,
      detail: 'templates.0.localizations: en_US is not a BCP 47 language tag (such as de, de-AT, pt-BR)',
    });
    expect((await create({ de: { title: '' } })).body.detail).toBe('templates.0.localizations.de.title must not be empty');
    expect((await create({ de: { heading: 'x' } })).status).toBe(400);
    expect((await create({ de: { body: 'x'.repeat(4096) }, fr: { body: 'y'.repeat(4096) } })).body.detail).toMatch(/^templates\.0\.localizations\.de exceeds 4096 bytes of payload/);
    expect((await h.admin('GET', RELEASES)).body.releases).toEqual([]);
  });

  test('each device gets the best match for its locale: exact tag, else its language, else the template; a missing part is the template own', async () => {
    await setup();
    const atDevice = await register('at', 'de-AT');
    const deDevice = await register('de', 'de-DE');
    const frDevice = await register('fr', 'fr');
    const noLocale = await register('none');
    const enDevice = await register('en', 'en-GB');
    const res = await send();
    expect(res.body).toEqual({ messageCount: 5, messageId: expect.stringMatching(/^msg_/) });
    const messageId = res.body.messageId;
    expect(await received()).toEqual({
      [atDevice]: { title: 'Servus Ada', body: 'Welcome back', subtitle: 'News', messageId },
      [deDevice]: { title: 'Hallo Ada', body: 'Willkommen zurück', subtitle: 'News', messageId },
      [frDevice]: { title: 'Hello Ada', body: 'Welcome back', subtitle: 'Nouvelles', messageId },
      [noLocale]: { title: 'Hello Ada', body: 'Welcome back', subtitle: 'News', messageId },
      [enDevice]: { title: 'Hello Ada', body: 'Welcome back', subtitle: 'News', messageId },
    });
    // One message per content used (4, not 5 devices), all counted under the public id.
    expect(await testRows<{ n: number }>(h.ctx, 'SELECT count(*) AS n FROM messages')).toEqual([{ n: 4 }]);
    const status = await h.service('a1', 'GET', `/api/apps/a1/notifications/${messageId}`);
    expect(status.body).toMatchObject({ messageId, templateSlug: 'greeting', deliveries: { total: 5, queued: 5 }, platforms: { ios: { total: 5 } } });
  });

  test('a send to many devices of one language writes them all under that language, in batches', async () => {
    await setup();
    const now = h.clock.now();
    for (let i = 0; i < 1_203; i++) {
      const id = `u${i}`;
      await devicesRepository(h.ctx.db.sql).upsert('a1', { endUserId: id, platform: 'ios', token: apnsToken(id), locale: i % 3 === 0 ? 'de-CH' : 'en-US' }, now);
    }
    const res = await send();
    expect(res.body.messageCount).toBe(1_203);
    const byTitle = await testRows<{ title: string; n: number }>(
      h.ctx,
      `SELECT m.content AS title, count(*) AS n FROM deliveries d JOIN messages m ON m.id = d.message_id GROUP BY m.content ORDER BY n`,
    );
    expect(byTitle.map((r) => [JSON.parse(r.title).title, r.n])).toEqual([
      ['Hallo Ada', 401],
      ['Hello Ada', 802],
    ]);
    expect(await testRows<{ n: number }>(h.ctx, 'SELECT count(*) AS n FROM messages')).toEqual([{ n: 2 }]);
    const status = await h.service('a1', 'GET', `/api/apps/a1/notifications/${res.body.messageId}`);
    expect(status.body.deliveries.total).toBe(1_203);
  }, 60_000);

  test('a localization that cannot be sent once rendered answers 400 naming it, and nothing is queued', async () => {
    await setup([{ slug: 'greeting', title: 'Hi', body: 'b', localizations: { de: { body: '{{text}}' } } }]);
    await register('de', 'de');
    const res = await send({ variables: { text: 'x'.repeat(4100) } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^localizations\.de: payload exceeds 4096 bytes: \d+ bytes once rendered$/);
    expect(await testRows(h.ctx, 'SELECT id FROM messages')).toEqual([]);
  });

  test('a send to no device writes no message, localized or not', async () => {
    await setup();
    expect((await send()).body).toEqual({ messageCount: 0, messageId: null });
    expect(await testRows(h.ctx, 'SELECT id FROM messages')).toEqual([]);
  });
});
