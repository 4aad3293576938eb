import { describe, expect, test } from 'bun:test';
import Ajv from 'ajv';
import { ADMIN_TOKEN, createHarness, type Harness } from '../../test-support/harness';
import { NOT_TRYABLE_ON_THE_DEMO } from './operation-docs';

// Every example of the document, sent as Swagger UI's "Try it out" sends it, to an instance that
// delivered for another app before `islet demo` ran (ids that count across apps are not the
// demo's), answering the documented success status and shape. One test per example and per
// operation, each on its own instance, closed by the test itself: a slow one cannot run into
// the next one's instance.

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const TIMEOUT_MS = 20_000;
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });

interface Operation {
  key: string;
  path: string;
  method: string;
  op: any;
}

function operationsOf(doc: any): Operation[] {
  return Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
    Object.entries<any>(ops)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, path, method, op })),
  );
}

/** The names of the tests come from the document of a fresh instance. */
const listed = await (async () => {
  const h = await createHarness();
  try {
    return operationsOf((await h.request('GET', '/swagger/json')).body);
  } finally {
    h.close();
  }
})();

/** An instance on which another app started a Live Activity (a delivery) before the demo was made. */
async function instanceThatDeliveredBefore(withDemo: boolean): Promise<{ h: Harness; appSecret: string }> {
  const h = await createHarness();
  await h.createApp({ id: 'earlier' });
  expect((await h.service('earlier', 'POST', '/api/apps/earlier/devices', { endUserId: 'u1', platform: 'android', token: 't1' })).status).toBe(200);
  const start = { templateSlug: 'progress-bar', attributes: { label: 'x' }, contentState: { progress: '1' } };
  expect((await h.service('earlier', 'POST', '/api/apps/earlier/live-activities', start)).body.activityCount).toBe(1);
  const appSecret = withDemo ? (await h.admin('POST', '/api/admin/demo')).body.appSecret : '';
  return { h, appSecret };
}

/** Sends one operation as documented by the instance itself and checks the success answer. */
async function tryIt(key: string, exampleName: string | undefined): Promise<void> {
  const { path, method } = listed.find((o) => o.key === key)!;
  const { h, appSecret } = await instanceThatDeliveredBefore(path !== '/api/admin/demo');
  try {
    const op = (await h.request('GET', '/swagger/json')).body.paths[path][method];
    const url = path.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(String(op.parameters.find((p: any) => p.name === name).example)));
    const headers: Record<string, string> = path.startsWith('/api/admin') ? { authorization: `Bearer ${ADMIN_TOKEN}` } : { 'x-service-key': appSecret };
    const body = exampleName === undefined ? undefined : op.requestBody.content['application/json'].examples[exampleName].value;
    const res = await h.request(method.toUpperCase(), url, { headers, ...(body === undefined ? {} : { body }) });
    const [status, response] = Object.entries<any>(op.responses).find(([s]) => Number(s) < 400)!;
    expect({ url, status: res.status, detail: res.body?.detail }).toEqual({ url, status: Number(status), detail: undefined });
    const schema = response.content['application/json']?.schema;
    if (schema) expect({ url, errors: ajv.validate(schema, res.body) ? null : ajv.errors }).toEqual({ url, errors: null });
  } finally {
    h.close();
  }
}

describe('every example works on an instance that delivered before `islet demo`', () => {
  for (const { key, op } of listed) {
    const json = op.requestBody?.content['application/json'];
    const examples = Object.keys(json?.examples ?? {});
    if (NOT_TRYABLE_ON_THE_DEMO[key]) {
      // Not sendable to a demo instance (a receiver is needed): the examples must still fit the schema.
      test(`${key}: its examples fit the request schema`, () => {
        for (const name of examples) {
          const value = json.examples[name].value;
          expect({ key, name, errors: ajv.validate(json.schema, value) ? null : ajv.errors }).toEqual({ key, name, errors: null });
        }
      });
      continue;
    }
    if (examples.length === 0) test(`${key} answers its documented success with the documented parameter values`, () => tryIt(key, undefined), TIMEOUT_MS);
    for (const name of examples) test(`${key} with example ${name} answers its documented success`, () => tryIt(key, name), TIMEOUT_MS);
  }

  test('the examples cover the API: the bodies of the start (9), update (3), end (2), the push token and the twelve that had none; 25 body-less operations', () => {
    const tried = listed.filter((o) => !NOT_TRYABLE_ON_THE_DEMO[o.key]);
    const bodies = tried.flatMap((o) => Object.keys(o.op.requestBody?.content['application/json']?.examples ?? {}));
    expect(bodies.length).toBeGreaterThanOrEqual(30);
    expect(tried.filter((o) => !o.op.requestBody?.content['application/json']?.examples).length).toBeGreaterThanOrEqual(25);
  });

  test('the delivery example is the demo’s own delivery, not delivery 1 of another app', async () => {
    const { h } = await instanceThatDeliveredBefore(true);
    try {
      const op = (await h.request('GET', '/swagger/json')).body.paths['/api/admin/apps/{appId}/deliveries/{id}'].get;
      const id = op.parameters.find((p: any) => p.name === 'id').example;
      expect(id).toBeGreaterThan(1);
      expect((await h.admin('GET', '/api/admin/apps/earlier/deliveries/1')).status).toBe(200);
    } finally {
      h.close();
    }
  });
});
