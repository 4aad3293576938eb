import { afterEach, describe, expect, test } from 'bun:test';
import { createHarness, type Harness } from '../../../test-support/harness';
import { forEachDatabase } from '../../../test-support/databases';
import type { AppContext } from '../../../context';
import { richTemplate } from '../../../test-support/notification-fixtures';


forEachDatabase('template options', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());
  const base = '/api/admin/apps/a1/releases';

  async function setup() {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
  }

  test('a template with every field is kept and shown in the record, its placeholders found in every templated field', async () => {
    await setup();
    const res = await h.admin('POST', base, { version: 1, templates: [richTemplate] });
    expect(res.status).toBe(201);
    const shown = { ...richTemplate, placeholders: ['order', 'state', 'shop'] };
    expect(res.body.templates).toEqual([shown]);
    expect((await h.admin('GET', `${base}/1`)).body.templates).toEqual([shown]);
  });

  test('a put replaces the options with those given; without any, the record is as before the fields existed', async () => {
    await setup();
    await h.admin('POST', base, { version: 1, templates: [richTemplate] });
    const put = await h.admin('PUT', `${base}/1/templates/order`, { title: 'T', body: 'B', badge: 0 });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ slug: 'order', title: 'T', body: 'B', placeholders: [], badge: 0 });
    const plain = await h.admin('PUT', `${base}/1/templates/order`, { title: 'T', body: 'B' });
    expect(plain.body).toEqual({ slug: 'order', title: 'T', body: 'B', placeholders: [] });
    expect((await h.admin('GET', `${base}/1`)).body.templates).toEqual([plain.body]);
  });

  test('a silent template may have an empty title; any other may not', async () => {
    await setup();
    const silent = { slug: 'sync', title: '', body: '', silent: true, data: { sync: 'inbox' }, priority: 'normal' };
    const res = await h.admin('POST', base, { version: 1, templates: [silent] });
    expect(res.status).toBe(201);
    expect(res.body.templates).toEqual([{ ...silent, placeholders: [] }]);
    const loud = await h.admin('PUT', `${base}/1/templates/sync`, { title: '', body: 'x' });
    expect(loud.body).toEqual({ title: 'Bad Request', status: 400, detail: 'title must not be empty' });
    const created = await h.admin('POST', base, { version: 2, templates: [{ slug: 'a', title: '', body: '' }] });
    expect(created.body.detail).toBe('templates.0.title must not be empty');
  });

  describe('each invalid field answers 400 naming it, at create and at put', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['subtitle placeholder', { subtitle: 'Hi {{' }, 'subtitle has an invalid placeholder: {{'],
      ['data not strings', { data: { n: 1 } }, 'data.n must be a string'],
      ['data key aps', { data: { aps: 'x' } }, 'data key aps is reserved by APNs'],
      ['data key from', { data: { from: 'x' } }, 'data key from is reserved by FCM'],
      ['data key message_type', { data: { message_type: 'x' } }, 'data key message_type is reserved by FCM'],
      ['data key notification', { data: { notification: 'x' } }, 'data key notification is reserved by FCM'],
      ['data key google.', { data: { 'google.c.a': 'x' } }, 'data key google.c.a is reserved by FCM'],
      ['data key gcm.', { data: { 'gcm.n.e': 'x' } }, 'data key gcm.n.e is reserved by FCM'],
      ['data key islet', { data: { isletMessageId: 'x' } }, 'data key isletMessageId is reserved by Islet (keys starting islet carry what Islet adds)'],
      ['data key empty', { data: { '': 'x' } }, 'data keys must not be empty'],
      ['data value placeholder', { data: { url: '{{ }}' } }, 'data.url has an invalid placeholder: {{ }}'],
      ['sound empty', { sound: '' }, 'sound must not be empty'],
      ['badge negative', { badge: -1 }, 'badge must be at least 0'],
      ['badge fraction', { badge: 1.5 }, 'badge must be an integer'],
      ['image http', { image: 'http://img.example.com/a.png' }, 'image must be an https URL'],
      ['interruptionLevel', { interruptionLevel: 'loud' }, 'interruptionLevel must be one of passive, active, time-sensitive, critical'],
      ['relevanceScore', { relevanceScore: 1.5 }, 'relevanceScore must be at most 1'],
      ['collapseId size', { collapseId: `${'x'.repeat(65)}{{id}}` }, 'collapseId is 65 bytes even with every placeholder empty; APNs allows at most 64'],
      ['ttlSeconds', { ttlSeconds: 2_419_201 }, 'ttlSeconds must be at most 2419200'],
      ['priority', { priority: 'urgent' }, 'priority must be one of high, normal'],
      ['silent', { silent: 'yes' }, 'silent must be true or false'],
      ['silent with a badge', { silent: true, badge: 1 }, 'badge cannot be used with silent: a background push shows nothing'],
      ['silent with a sound', { silent: true, sound: 'default' }, 'sound cannot be used with silent: a background push shows nothing'],
      ['silent with a title (and body)', { silent: true }, 'title cannot be used with silent: a background push shows no text'],
      ['unknown field', { colour: 'red' }, 'colour is not a known field'],
    ];
    for (const [name, fields, detail] of cases) {
      test(name, async () => {
        await setup();
        const created = await h.admin('POST', base, { version: 1, templates: [{ slug: 's', title: 'T', body: 'B', ...fields }] });
        expect(created.body).toEqual({ title: 'Bad Request', status: 400, detail: `templates.0.${detail}` });
        await h.admin('POST', base, { version: 2 });
        const put = await h.admin('PUT', `${base}/2/templates/s`, { title: 'T', body: 'B', ...fields });
        expect(put.body).toEqual({ title: 'Bad Request', status: 400, detail });
        expect((await h.admin('GET', `${base}/2`)).body.templates).toEqual([]);
      });
    }
  });
});
