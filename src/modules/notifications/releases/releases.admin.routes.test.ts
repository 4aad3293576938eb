import { afterEach, describe, expect, test } from 'bun:test';
import { createHarness, type Harness } from '../../../test-support/harness';
import { testRows } from '../../../test-support/test-sql';
import { forEachDatabase } from '../../../test-support/databases';
import type { AppContext } from '../../../context';

forEachDatabase('releases', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  const welcome = { slug: 'welcome', title: 'Hi {{ name }}', body: 'You have {{count}} new messages, {{name}}' };
  const base = '/api/admin/apps/a1/releases';

  async function setup() {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
  }

  const statusOf = async (version: number) => (await h.admin('GET', `${base}/${version}`)).body.status;

  describe('releases', () => {
    test('a release is created with its templates, whose placeholders are listed', async () => {
      await setup();
      const res = await h.admin('POST', base, { version: 1, templates: [welcome, { slug: 'bye', title: 'Bye', body: '' }] });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        version: 1,
        status: 'Draft',
        createdAt: '2026-01-15T12:00:00.000Z',
        updatedAt: '2026-01-15T12:00:00.000Z',
        templates: [
          { slug: 'bye', title: 'Bye', body: '', placeholders: [] },
          { ...welcome, placeholders: ['name', 'count'] },
        ],
      });
      expect((await h.admin('GET', `${base}/1`)).body).toEqual(res.body);
    });

    test('the list holds every release with its templates, newest version first', async () => {
      await setup();
      await h.admin('POST', base, { version: 1, status: 'Live', templates: [welcome] });
      await h.admin('POST', base, { version: 3, status: 'Testing' });
      await h.admin('POST', base, { version: 2 });
      const res = await h.admin('GET', base);
      expect(res.status).toBe(200);
      expect(res.body.releases.map((r: { version: number; status: string }) => [r.version, r.status])).toEqual([
        [3, 'Testing'],
        [2, 'Draft'],
        [1, 'Live'],
      ]);
      expect(res.body.releases[2].templates.map((t: { slug: string }) => t.slug)).toEqual(['welcome']);
      expect(res.body.releases[0].templates).toEqual([]);
    });

    test('making a release Live archives the previous Live one', async () => {
      await setup();
      await h.admin('POST', base, { version: 1, status: 'Live' });
      await h.admin('POST', base, { version: 2, status: 'Testing' });
      h.clock.advance(60_000);
      const res = await h.admin('PATCH', `${base}/2`, { status: 'Live' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ version: 2, status: 'Live', updatedAt: '2026-01-15T12:01:00.000Z' });
      const previous = await h.admin('GET', `${base}/1`);
      expect(previous.body).toMatchObject({ status: 'Archived', updatedAt: '2026-01-15T12:01:00.000Z' });
      const created = await h.admin('POST', base, { version: 3, status: 'Live' });
      expect(created.status).toBe(201);
      expect(await statusOf(2)).toBe('Archived');
      const live = await testRows(h.ctx, `SELECT version FROM releases WHERE app_id = 'a1' AND status = 'Live'`);
      expect(live).toEqual([{ version: 3 }]);
    });

    test('an Archived release can be made Live again to roll back', async () => {
      await setup();
      await h.admin('POST', base, { version: 1, status: 'Live' });
      await h.admin('POST', base, { version: 2, status: 'Live' });
      const res = await h.admin('PATCH', `${base}/1`, { status: 'Live' });
      expect(res.body.status).toBe('Live');
      expect(await statusOf(2)).toBe('Archived');
    });

    test('status changes follow the rules; setting the same status changes nothing', async () => {
      await setup();
      await h.admin('POST', base, { version: 1 });
      expect((await h.admin('PATCH', `${base}/1`, { status: 'Testing' })).body.status).toBe('Testing');
      expect((await h.admin('PATCH', `${base}/1`, { status: 'Draft' })).body.status).toBe('Draft');
      h.clock.advance(1000);
      const same = await h.admin('PATCH', `${base}/1`, { status: 'Draft' });
      expect(same.body).toMatchObject({ status: 'Draft', updatedAt: '2026-01-15T12:00:00.000Z' });
      await h.admin('PATCH', `${base}/1`, { status: 'Live' });
      for (const status of ['Draft', 'Testing']) {
        const refused = await h.admin('PATCH', `${base}/1`, { status });
        expect(refused.status).toBe(409);
        expect(refused.body.detail).toBe(`release 1 cannot go from Live to ${status}; it can become Archived`);
      }
      await h.admin('PATCH', `${base}/1`, { status: 'Archived' });
      const back = await h.admin('PATCH', `${base}/1`, { status: 'Testing' });
      expect(back.body).toEqual({ title: 'Conflict', status: 409, detail: 'release 1 cannot go from Archived to Testing; it can become Live' });
      expect(await statusOf(1)).toBe('Archived');
    });

    test('bad versions are refused clearly; a duplicate version is a conflict', async () => {
      await setup();
      const cases: [unknown, string][] = [
        [{}, 'version is required'],
        [{ version: 'one' }, 'version must be an integer'],
        [{ version: 1.5 }, 'version must be an integer'],
        [{ version: 0 }, 'version must be at least 1'],
        [{ version: 1, status: 'Archived' }, 'status must be one of Draft, Testing, Live'],
        [{ version: 1, extra: true }, 'extra is not a known field'],
      ];
      for (const [body, detail] of cases) {
        const res = await h.admin('POST', base, body);
        expect({ status: res.status, detail: res.body.detail }).toEqual({ status: 400, detail });
      }
      for (const path of [`${base}/abc`, `${base}/0`, `${base}/-1`, `${base}/1.5`, `${base}/99999999999`]) {
        const res = await h.admin('GET', path);
        expect({ status: res.status, detail: res.body.detail }).toEqual({ status: 400, detail: 'version must be a positive integer' });
      }
      await h.admin('POST', base, { version: 1 });
      const again = await h.admin('POST', base, { version: 1, status: 'Live' });
      expect(again.body).toEqual({ title: 'Conflict', status: 409, detail: 'release 1 already exists' });
      expect(await statusOf(1)).toBe('Draft');
    });

    test('unknown releases and apps are 404', async () => {
      await setup();
      expect((await h.admin('GET', `${base}/7`)).body).toEqual({ title: 'Not Found', status: 404, detail: 'release not found' });
      expect((await h.admin('PATCH', `${base}/7`, { status: 'Live' })).body.detail).toBe('release not found');
      expect((await h.admin('PUT', `${base}/7/templates/x`, { title: 't', body: 'b' })).body.detail).toBe('release not found');
      expect((await h.admin('GET', '/api/admin/apps/nope/releases')).body.detail).toBe('app not found');
      expect((await h.admin('POST', '/api/admin/apps/nope/releases', { version: 1 })).body.detail).toBe('app not found');
    });

    test('duplicate slugs and bad template fields are refused, naming the field', async () => {
      await setup();
      const cases: [unknown[], string][] = [
        [[welcome, { ...welcome, title: 'Other' }], 'templates.1.slug welcome is already used by templates.0'],
        [[{ ...welcome, title: 'Hi {{first name}}' }], 'templates.0.title has an invalid placeholder: {{first name}}'],
        [[welcome, { ...welcome, slug: 'b', body: 'unclosed {{name' }], 'templates.1.body has an invalid placeholder: {{name'],
        [[{ ...welcome, body: 'stray }} here' }], 'templates.0.body has an invalid placeholder: }}'],
        [[{ ...welcome, title: 'Hi {{ }}' }], 'templates.0.title has an invalid placeholder: {{ }}'],
        [[{ ...welcome, slug: 'has space' }], 'templates.0.slug must be 1-128 letters, digits, ., _ or -, starting with a letter or digit'],
        [[{ ...welcome, title: '' }], 'templates.0.title must not be empty'],
        [[{ slug: 'x', title: 't' }], 'templates.0.body is required'],
        [[{ ...welcome, extra: 1 }], 'templates.0.extra is not a known field'],
      ];
      for (const [templates, detail] of cases) {
        const res = await h.admin('POST', base, { version: 1, templates });
        expect({ status: res.status, detail: res.body.detail }).toEqual({ status: 400, detail });
      }
      expect((await h.admin('GET', base)).body.releases).toEqual([]);
    });

    test('a template too large to send even with empty placeholders is refused', async () => {
      await setup();
      const res = await h.admin('POST', base, { version: 1, templates: [{ slug: 'big', title: 'T {{x}}', body: 'é'.repeat(2100) }] });
      expect(res.body).toEqual({
        title: 'Bad Request',
        status: 400,
        detail: 'templates.0 exceeds 4096 bytes of payload even with every placeholder empty (4271 bytes)',
      });
    });

    test('the admin API needs the admin token', async () => {
      await setup();
      const missing = await h.request('GET', base);
      expect(missing.status).toBe(401);
      const wrong = await h.request('POST', base, { body: { version: 1 }, headers: { authorization: 'Bearer nope' } });
      expect(wrong.body.detail).toBe('invalid admin token');
      expect((await h.admin('GET', base)).body.releases).toEqual([]);
    });
  });

  describe('templates of a release', () => {
    test('a template is created with PUT (201), then replaced (200), with its placeholders', async () => {
      await setup();
      await h.admin('POST', base, { version: 1, status: 'Testing' });
      h.clock.advance(5000);
      const created = await h.admin('PUT', `${base}/1/templates/promo`, { title: '{{ pct }}% off', body: 'Until {{date}}' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ slug: 'promo', title: '{{ pct }}% off', body: 'Until {{date}}', placeholders: ['pct', 'date'] });
      const replaced = await h.admin('PUT', `${base}/1/templates/promo`, { title: 'Sale', body: 'Now, {{ name }}' });
      expect(replaced.status).toBe(200);
      const release = await h.admin('GET', `${base}/1`);
      expect(release.body.templates).toEqual([{ slug: 'promo', title: 'Sale', body: 'Now, {{ name }}', placeholders: ['name'] }]);
      expect(release.body.updatedAt).toBe('2026-01-15T12:00:05.000Z');
    });

    test('a template is deleted, then is gone', async () => {
      await setup();
      await h.admin('POST', base, { version: 1, templates: [welcome] });
      const res = await h.admin('DELETE', `${base}/1/templates/welcome`);
      expect(res.body).toEqual({ success: true });
      expect((await h.admin('GET', `${base}/1`)).body.templates).toEqual([]);
      const again = await h.admin('DELETE', `${base}/1/templates/welcome`);
      expect(again.body).toEqual({ title: 'Not Found', status: 404, detail: 'notification template not found', slug: 'welcome', releaseVersion: 1 });
    });

    test('bad placeholder syntax and bad slugs in a PUT are refused', async () => {
      await setup();
      await h.admin('POST', base, { version: 1 });
      const bad = await h.admin('PUT', `${base}/1/templates/promo`, { title: 'Hi {{name', body: '' });
      expect(bad.body).toEqual({ title: 'Bad Request', status: 400, detail: 'title has an invalid placeholder: {{name' });
      const slug = await h.admin('PUT', `${base}/1/templates/bad%20slug`, { title: 't', body: 'b' });
      expect({ status: slug.status, detail: slug.body.detail }).toEqual({ status: 400, detail: 'slug must be 1-128 letters, digits, ., _ or -, starting with a letter or digit' });
      expect((await h.admin('GET', `${base}/1`)).body.templates).toEqual([]);
    });

    test('templates of a Live or Archived release cannot be changed', async () => {
      await setup();
      await h.admin('POST', base, { version: 1, status: 'Live', templates: [welcome] });
      const put = await h.admin('PUT', `${base}/1/templates/welcome`, { title: 'Changed', body: '' });
      expect(put.body).toEqual({
        title: 'Conflict',
        status: 409,
        detail: 'release 1 is Live; templates of a Live or Archived release cannot be changed',
      });
      await h.admin('POST', base, { version: 2, status: 'Live' });
      const del = await h.admin('DELETE', `${base}/1/templates/welcome`);
      expect(del.body.detail).toBe('release 1 is Archived; templates of a Live or Archived release cannot be changed');
      expect((await h.admin('GET', `${base}/1`)).body.templates).toEqual([{ ...welcome, placeholders: ['name', 'count'] }]);
    });

    test("deleting an app removes its releases and templates", async () => {
      await setup();
      await h.admin('POST', base, { version: 1, templates: [welcome] });
      await h.admin('DELETE', '/api/admin/apps/a1');
      const [rows] = await testRows(h.ctx, `SELECT (SELECT count(*) FROM releases) AS r, (SELECT count(*) FROM notification_templates) AS t`);
      expect(rows).toEqual({ r: 0, t: 0 });
    });
  });
});
