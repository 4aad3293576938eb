import { afterEach, describe, expect, test } from 'bun:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createHarness, type Harness } from '../../test-support/harness';

let h: Harness;
afterEach(() => h?.close());

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('API documentation', () => {
  test('the OpenAPI document is valid', async () => {
    h = await createHarness();
    const res = await h.request('GET', '/swagger/json');
    expect(res.status).toBe(200);
    const validated = await SwaggerParser.validate(structuredClone(res.body));
    expect(validated.info.title).toBe('Islet API');
  });

  test('it lists exactly the routes the server answers', async () => {
    h = await createHarness();
    const doc = (await h.request('GET', '/swagger/json')).body;
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const served = h.app.routes
      .filter((r) => !r.path.startsWith('/swagger') && !r.path.startsWith('/console') && METHODS.includes(r.method.toLowerCase()))
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
      .sort();
    expect(documented).toEqual(served);
  });

  test('every mutating operation of the public API documents the Idempotency-Key header, and no other does', async () => {
    h = await createHarness();
    const doc = (await h.request('GET', '/swagger/json')).body;
    const withKey: string[] = [];
    const mutating: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!METHODS.includes(method)) continue;
        if (path.startsWith('/api/apps/') && method !== 'get') mutating.push(`${method} ${path}`);
        if (op.parameters?.some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key')) {
          withKey.push(`${method} ${path}`);
          expect(op.responses['422']).toBeDefined();
        }
      }
    }
    expect(mutating.length).toBeGreaterThan(5);
    expect(withKey.sort()).toEqual(mutating.sort());
  });

  test('every operation documents its errors with the problem body and declares its security', async () => {
    h = await createHarness();
    const doc = (await h.request('GET', '/swagger/json')).body;
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!METHODS.includes(method)) continue;
        const where = `${method.toUpperCase()} ${path}`;
        expect({ where, responses: typeof op.responses }).toEqual({ where, responses: 'object' });
        // Every operation says what it asks for; `[]` (nothing) on health and readiness.
        expect({ where, security: Array.isArray(op.security) }).toEqual({ where, security: true });
        // The one API operation open to anyone: the VAPID public key a web page subscribes with.
        if (path.startsWith('/api/') && where !== 'GET /api/apps/{appId}/web-push/public-key') {
          expect({ where, security: op.security.length > 0 }).toEqual({ where, security: true });
          expect({ where, has401: '401' in op.responses }).toEqual({ where, has401: true });
        }
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          if (Number(status) < 400) continue;
          // As sent: lib/errors.ts answers every error as a problem.
          expect({ where, status, types: Object.keys(response.content ?? {}) }).toEqual({ where, status, types: ['application/problem+json'] });
          const schema = response.content['application/problem+json'].schema;
          expect({ where, status, required: schema?.required }).toEqual({ where, status, required: ['title', 'status', 'detail'] });
        }
        if (op.requestBody) expect({ where, types: Object.keys(op.requestBody.content) }).toEqual({ where, types: ['application/json'] });
      }
    }
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['adminToken', 'endUserSignature', 'metricsToken', 'serviceKey']);
  });

  test('the start body offers one named example per template, and one with options, for the demo end user', async () => {
    h = await createHarness();
    const doc = (await h.request('GET', '/swagger/json')).body;
    const json = doc.paths['/api/apps/{appId}/live-activities'].post.requestBody.content['application/json'];
    expect(Object.keys(json.examples)).toEqual(['status-tracker', 'metric-live', 'countdown', 'progress-bar', 'two-column', 'key-value-list', 'image-banner', 'mini-table', 'progress-bar-2']);
    expect(json.examples['progress-bar-2'].value).toMatchObject({ alert: { title: 'Upload started' }, staleDate: '2026-11-23T12:00:00Z', targetUsers: ['demo-user'] });
    // Every example is a request a demo instance accepts as it stands, starting one activity.
    const { appSecret } = (await h.admin('POST', '/api/admin/demo')).body;
    for (const [slug, example] of Object.entries<any>(json.examples)) {
      const res = await h.request('POST', '/api/apps/demo/live-activities', { body: example.value, headers: { 'x-service-key': appSecret } });
      expect({ slug, status: res.status, count: res.body.activityCount }).toEqual({ slug, status: 200, count: 1 });
    }
  });

  test('every operation documents a success answer and its errors; every request body has an example; every path parameter has the demo value', async () => {
    h = await createHarness();
    const doc = (await h.request('GET', '/swagger/json')).body;
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!METHODS.includes(method)) continue;
        const where = `${method.toUpperCase()} ${path}`;
        const success = Object.entries<any>(op.responses).filter(([status]) => Number(status) < 400);
        if (success.length === 0 || success.some(([, r]) => !r.content)) missing.push(`${where}: success answer`);
        if (!Object.keys(op.responses).some((status) => Number(status) >= 400) && !path.startsWith('/healthz') && path !== '/metrics') missing.push(`${where}: errors`);
        const json = op.requestBody?.content['application/json'];
        if (json && !(Object.keys(json.examples ?? {}).length > 0)) missing.push(`${where}: body example`);
        for (const p of op.parameters ?? []) if (p.in === 'path' && p.example === undefined) missing.push(`${where}: example of ${p.name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test('options are documented: the end body is optional, priority is "auto" or an integer 5 or 10, and the examples of update and end are accepted', async () => {
    h = await createHarness();
    const doc = (await h.request('GET', '/swagger/json')).body;
    const item = doc.paths['/api/apps/{appId}/live-activities/{id}'];
    expect(item.delete.requestBody.required).toBe(false);
    expect(item.delete.requestBody.content['application/json'].schema['x-islet-optional-body']).toBeUndefined();
    expect(item.patch.requestBody.content['application/json'].schema.properties.priority).toMatchObject({
      anyOf: [
        { type: 'string', enum: ['auto'] },
        { type: 'integer', enum: [5, 10] },
      ],
    });
    await h.createApp({ id: 'docs' });
    await h.service('docs', 'POST', '/api/apps/docs/devices', { endUserId: 'demo-user', platform: 'android', token: 't1' });
    const start = { templateSlug: 'progress-bar', attributes: { label: 'x' }, contentState: { progress: '1' } };
    const id = (await h.service('docs', 'POST', '/api/apps/docs/live-activities', start)).body.activities[0].id;
    for (const example of Object.values<any>(item.patch.requestBody.content['application/json'].examples))
      expect((await h.service('docs', 'PATCH', `/api/apps/docs/live-activities/${id}`, example.value)).status).toBe(200);
    const [end] = Object.values<any>(item.delete.requestBody.content['application/json'].examples);
    expect((await h.service('docs', 'DELETE', `/api/apps/docs/live-activities/${id}`, end.value)).status).toBe(200);
  });

  test('Swagger UI loads its files from this server only', async () => {
    h = await createHarness();
    const page = await h.request('GET', '/swagger');
    expect(page.status).toBe(200);
    const sources = [...String(page.body).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThan(0);
    for (const src of sources) {
      expect(src.startsWith('/')).toBe(true);
      expect((await h.request('GET', src)).status).toBe(200);
    }
  });
});
