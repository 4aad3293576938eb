import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { serveApp, type ServedApp } from '../../test-support/served-app';

/*
 * The usage API through a real served process: an app whose plan has no Live Activities says so
 * (`liveActivities: false`) instead of looking unlimited (`quota: null` alone), and the start it
 * predicts is indeed refused.
 */

let served: ServedApp;
const ADMIN = 'usage-admin';
const admin = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${served.server.url}/api/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  served = await serveApp({
    app: 'freeapp',
    secret: 'sk_free',
    admin: ADMIN,
    more: 'plan = "free"\n[plans.open]\nlive_activities = true\n',
  });
});
afterAll(() => served?.close());

describe('GET /api/admin/apps/{appId}/usage', () => {
  test('a plan without Live Activities says liveActivities: false, and a start is refused with 403 as it predicts', async () => {
    const usage = await admin('GET', '/apps/freeapp/usage');
    expect(usage.status).toBe(200);
    expect({ plan: usage.body.plan, liveActivities: usage.body.liveActivities, quota: usage.body.quota }).toEqual({ plan: 'free', liveActivities: false, quota: null });
    const start = await fetch(`${served.server.url}/api/apps/freeapp/live-activities`, {
      method: 'POST',
      headers: { 'x-service-key': 'sk_free', 'content-type': 'application/json' },
      body: JSON.stringify({ templateSlug: 'progress-bar', attributes: { label: 'x' }, contentState: { progress: '10' } }),
    });
    expect(start.status).toBe(403);
    expect(((await start.json()) as { detail: string }).detail).toBe('live activities are not available on your current plan');
  });

  test('plans with Live Activities say liveActivities: true, with their quota or none (unlimited)', async () => {
    expect((await admin('POST', '/apps', { name: 'Pro', id: 'proapp', plan: 'pro' })).status).toBe(201);
    expect((await admin('POST', '/apps', { name: 'Open', id: 'openapp', plan: 'open' })).status).toBe(201);
    const pro = (await admin('GET', '/apps/proapp/usage')).body;
    const open = (await admin('GET', '/apps/openapp/usage')).body;
    expect([pro.liveActivities, pro.quota]).toEqual([true, 10000]);
    expect([open.liveActivities, open.quota]).toEqual([true, null]);
  });

  test('the OpenAPI document describes the field as required', async () => {
    const doc = (await (await fetch(`${served.server.url}/swagger/json`)).json()) as any;
    const schema = doc.paths['/api/admin/apps/{appId}/usage'].get.responses['200'].content['application/json'].schema;
    expect(schema.properties.liveActivities.type).toBe('boolean');
    expect(schema.required).toContain('liveActivities');
  });
});
