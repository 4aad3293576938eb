import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { serveApp, type ServedApp } from '../test-support/served-app';
import { serverClient } from '../test-support/server-client';

/*
 * Issue 50 points 8 and 9 through a served process: a refusal states the rule it applies, and the
 * body GET answered can be sent back with PUT.
 */
const APP = 'rules';
const SECRET = 'sk_stated_rules';
let served: ServedApp;
const { call, admin } = serverClient(() => served.server.url, SECRET, 't');
const problem = (status: number, detail: string) => ({ status, body: { title: expect.any(String), status, detail } });

beforeAll(async () => {
  served = await serveApp({ app: APP, secret: SECRET });
}, 30_000);
afterAll(() => served?.close(), 30_000);

describe('errors state the rule', () => {
  test('an audience tag that is not a string or a list of 1 to 100 strings says so, whatever was wrong', async () => {
    const rule = 'audience.tags.plan must be a string or a list of 1 to 100 strings, each at most 256 characters';
    for (const plan of [5, [], Array.from({ length: 101 }, (_, i) => `p${i}`), ['x'.repeat(257)]]) {
      expect(await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'offer', audience: { tags: { plan } } })).toEqual(problem(400, rule));
    }
  });

  test('a Live Activity template slug and attributesType that break their format say the format', async () => {
    const body = { slug: 'Has Space', attributesType: 'RideAttributes', contentState: { eta: { type: 'integer' } } };
    expect(await admin('POST', `/api/admin/apps/${APP}/live-activity-templates`, body)).toEqual(
      problem(400, 'slug must be 1-63 lowercase letters, digits or -, starting with a letter or digit'),
    );
    expect(await admin('POST', `/api/admin/apps/${APP}/live-activity-templates`, { ...body, slug: 'ride', attributesType: '9Ride' })).toEqual(
      problem(400, 'attributesType must be a Swift type name: 1-128 letters, digits and _, not starting with a digit'),
    );
    const release = { version: 1, templates: [{ slug: 'has space', title: 'T', body: 'B' }] };
    expect(await admin('POST', `/api/admin/apps/${APP}/releases`, release)).toEqual(
      problem(400, 'templates.0.slug must be 1-128 letters, digits, ., _ or -, starting with a letter or digit'),
    );
  });

  test('…/opened with a signature but no endUserId names endUserId; without any credential both ways are named', async () => {
    const opened = `/api/apps/${APP}/notifications/msg_unknown/opened`;
    expect(await call('POST', opened, { deviceId: 'dev_x' }, { 'x-end-user-signature': 'ab'.repeat(32) })).toEqual(problem(400, 'endUserId is required'));
    const neither = problem(401, 'X-Service-Key or X-End-User-Signature header is required');
    expect(await call('POST', opened, { endUserId: 'u1', deviceId: 'dev_x' }, {})).toEqual(neither);
    expect(await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'u1', platform: 'android', token: 'fcm-token-1' }, {})).toEqual(neither);
    // An endpoint only the backend calls still names its one header.
    expect(await call('GET', `/api/apps/${APP}/users/u1`, undefined, {})).toEqual(problem(401, 'X-Service-Key header is required'));
  });

  test('PUT and PATCH of tags refuse a __proto__ key alike, and store nothing', async () => {
    for (const method of ['PUT', 'PATCH']) {
      const res = await fetch(`${served.server.url}/api/apps/${APP}/users/proto`, {
        method,
        headers: { 'x-service-key': SECRET, 'content-type': 'application/json' },
        body: '{"tags":{"__proto__":"x","plan":"gold"}}',
      });
      expect({ status: res.status, detail: ((await res.json()) as { detail: string }).detail }).toEqual({ status: 400, detail: 'tag key "__proto__" is reserved' });
    }
    expect((await call('GET', `/api/apps/${APP}/users/proto`)).status).toBe(404);
  });
});

describe('a silent template', () => {
  test('needs no title or body, and refuses them naming the field', async () => {
    const release = (template: Record<string, unknown>, version: number) => admin('POST', `/api/admin/apps/${APP}/releases`, { version, templates: [{ slug: 'sync', silent: true, data: { sync: 'inbox' }, ...template }] });
    expect((await release({}, 10)).status).toBe(201);
    expect(await release({ title: 'Hello' }, 11)).toEqual(problem(400, 'templates.0.title cannot be used with silent: a background push shows no text'));
    expect(await release({ body: 'Hi' }, 11)).toEqual(problem(400, 'templates.0.body cannot be used with silent: a background push shows no text'));
    expect(await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 11, templates: [{ slug: 'loud', body: 'B' }] })).toEqual(problem(400, 'templates.0.title is required'));
  });
});

describe('what GET answers, PUT accepts', () => {
  test('a Live Activity template sent back as GET answered it is replaced; a slug other than the path’s is refused naming slug', async () => {
    const created = await admin('POST', `/api/admin/apps/${APP}/live-activity-templates`, { slug: 'match', attributesType: 'MatchAttributes', contentState: { score: { type: 'integer' } } });
    expect(created.status).toBe(201);
    const got = (await admin('GET', `/api/admin/apps/${APP}/live-activity-templates/match`)).body;
    const replaced = await admin('PUT', `/api/admin/apps/${APP}/live-activity-templates/match`, { ...got, contentState: { ...got.contentState, half: { type: 'integer' } } });
    expect(replaced.status).toBe(200);
    expect(Object.keys(replaced.body.contentState).sort()).toEqual(['half', 'score']);
    expect(await admin('PUT', `/api/admin/apps/${APP}/live-activity-templates/match`, { ...got, slug: 'other' })).toEqual(
      problem(400, "slug must be the path's (match): a template cannot be renamed"),
    );
    expect(await admin('PUT', `/api/admin/apps/${APP}/live-activity-templates/match`, { ...replaced.body, source: 'config' })).toEqual(
      problem(400, 'source is read-only: leave it out, or send what GET answered (api)'),
    );
  });

  test('an end user sent back as GET answered it is replaced; another endUserId is refused naming endUserId', async () => {
    expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'ann', platform: 'android', token: 'fcm-ann-1' })).status).toBe(200);
    expect((await call('PUT', `/api/apps/${APP}/users/ann`, { tags: { plan: 'gold' } })).status).toBe(200);
    const got = (await call('GET', `/api/apps/${APP}/users/ann`)).body;
    const replaced = await call('PUT', `/api/apps/${APP}/users/ann`, { ...got, tags: { plan: 'silver' } });
    expect(replaced).toMatchObject({ status: 200, body: { endUserId: 'ann', tags: { plan: 'silver' } } });
    expect(await call('PUT', `/api/apps/${APP}/users/ann`, { ...got, endUserId: 'bob' })).toEqual(problem(400, "endUserId must be the path's (ann): it is read-only"));
    expect(await call('PUT', `/api/apps/${APP}/users/ann`, { ...got, devices: [] })).toEqual(problem(400, 'devices is read-only: leave it out, or send the devices GET answered'));
  });
});
