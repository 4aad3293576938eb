import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import Ajv from 'ajv';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { serverClient } from '../../test-support/server-client';

// Issue 50 point 10 through a served process: the document's tags, its success examples, and error
// examples that equal what the server answers (the open report's 401s, the send's size error).
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const APP = 'docs';
const SECRET = 'sk_docs_answers';
/** Operations whose success needs what a bare demo instance has not (a webhook receiver, an orphan channel at Apple). */
const NO_RECORDED_ANSWER = /^(?:\w+ \/api\/admin\/apps\/\{appId\}\/webhooks|DELETE \/api\/admin\/apps\/\{appId\}\/broadcast-channels)/;
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });

let served: ServedApp;
let doc: any;
const { call, admin } = serverClient(() => served.server.url, SECRET, 't');
const operations = () =>
  Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
    Object.entries<any>(ops)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );
const examplesOf = (key: string, status: string) => {
  const [method, path] = key.split(' ');
  return Object.values<any>(doc.paths[path!][method!.toLowerCase()].responses[status].content['application/problem+json'].examples).map((e) => e.value);
};

beforeAll(async () => {
  served = await serveApp({ app: APP, secret: SECRET });
  doc = await (await fetch(`${served.server.url}/swagger/json`)).json();
}, 30_000);
afterAll(() => served?.close(), 30_000);

describe('the OpenAPI document of a served process', () => {
  test('every tag an operation names is declared with a description, public API first; no tag speaks of only eight templates', () => {
    const declared = doc.tags.map((t: { name: string }) => t.name);
    const used = new Set(operations().flatMap(({ op }) => op.tags ?? []));
    expect([...used].filter((t) => !declared.includes(t))).toEqual([]);
    for (const tag of doc.tags) expect(tag.description.length).toBeGreaterThan(20);
    for (const name of ['End users', 'Broadcasts', 'Admin: live activity templates', 'Admin: broadcasts']) expect(declared).toContain(name);
    expect(declared.findIndex((t: string) => t.startsWith('Admin:'))).toBeGreaterThan(declared.indexOf('End users'));
    expect(declared.indexOf('Admin: broadcasts')).toBe(declared.indexOf('Admin: live activity templates') + 1);
    expect(JSON.stringify(doc.tags)).not.toContain('the eight templates');
  });

  test('every JSON success answer has an example that fits its schema', () => {
    const missing: string[] = [];
    const misfits: string[] = [];
    for (const { key, op } of operations()) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const json = Number(status) < 300 ? response.content?.['application/json'] : undefined;
        if (!json) continue;
        const values = json.example !== undefined ? [json.example] : Object.values<any>(json.examples ?? {}).map((e) => e.value);
        if (values.length === 0 && !NO_RECORDED_ANSWER.test(key)) missing.push(key);
        for (const v of values) if (!ajv.validate(json.schema, v)) misfits.push(`${key}: ${ajv.errorsText()}`);
      }
    }
    expect({ missing, misfits }).toEqual({ missing: [], misfits: [] });
  });

  test('the send examples include an audience and this send’s own rich fields', () => {
    const examples = Object.values<any>(doc.paths['/api/apps/{appId}/notifications/send'].post.requestBody.content['application/json'].examples).map((e) => e.value);
    expect(examples.find((e) => e.audience)).toMatchObject({ audience: { tags: expect.any(Object) }, data: expect.any(Object), badge: expect.any(Number), collapseId: expect.any(String) });
  });

  test("the open report's 401 examples are the bodies the server answers", async () => {
    const opened = `/api/apps/${APP}/notifications/msg_x/opened`;
    const body = { endUserId: 'ada', deviceId: 'dev_x' };
    const answers = [
      await call('POST', opened, body, {}),
      await call('POST', opened, body, { 'x-service-key': 'sk_wrong' }),
      await call('POST', opened, body, { 'x-end-user-signature': createHmac('sha256', 'not-the-secret').update('ada').digest('hex') }),
    ];
    const documented = examplesOf('POST /api/apps/{appId}/notifications/{messageId}/opened', '401');
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(documented.map((d) => d.detail)).toContain(a.body.detail);
    }
    // The examples of the demo app's id: the same body, but for the app id in the path.
    const wrongKey = documented.find((d) => d.detail === 'invalid service key' && !d.keyAppId);
    expect({ ...answers[1]!.body, appId: wrongKey.appId, hint: answers[1]!.body.hint.replaceAll(APP, wrongKey.appId) }).toEqual(wrongKey);
    expect(answers[0]!.body).toEqual(documented.find((d) => d.detail === answers[0]!.body.detail));
    expect(answers[2]!.body).toEqual(documented.find((d) => d.detail === 'invalid end user signature'));
  });

  test("the send's size error example is a body the server answers, with its byte count", async () => {
    const release = await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates: [{ slug: 'big', title: 'Big', body: '{{text}}' }] });
    expect(release.status).toBe(201);
    expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'ada', platform: 'android', token: 'fcm-ada' })).status).toBe(200);
    const documented = examplesOf('POST /api/apps/{appId}/notifications/send', '400').find((d) => d.detail.startsWith('payload exceeds'));
    const wanted = Number(/: (\d+) bytes once rendered$/.exec(documented.detail)![1]);
    // The rendered size grows with the text byte for byte: a second send hits the documented count.
    const send = (length: number) => call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'big', variables: { text: 'x'.repeat(length) } });
    const first = await send(4200);
    const bytes = Number(/: (\d+) bytes once rendered$/.exec(first.body.detail)![1]);
    const exact = await send(4200 + wanted - bytes);
    expect(exact.body).toEqual(documented);
  });
});
