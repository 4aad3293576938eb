import { afterEach, describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createHarness, type Harness } from '../../test-support/harness';
import { testRows } from '../../test-support/test-sql';

let h: Harness;
afterEach(() => h?.close());

const p8 = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

describe('admin API: apps', () => {
  test('refuses requests without the admin token, or with a wrong one', async () => {
    h = await createHarness();
    const missing = await h.request('GET', '/api/admin/apps');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ title: 'Unauthorized', status: 401, detail: 'Authorization header with a Bearer admin token is required' });
    const wrong = await h.request('GET', '/api/admin/apps', { headers: { authorization: 'Bearer nope' } });
    expect(wrong.body.detail).toBe('invalid admin token');
  });

  test('creating an app returns two distinct strong secrets once, and the app is listed without them', async () => {
    h = await createHarness();
    const res = await h.admin('POST', '/api/admin/apps', { id: 'shop', name: 'Shop' });
    expect(res.status).toBe(201);
    expect(res.body.appSecret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(res.body.signingSecret).toMatch(/^ss_[A-Za-z0-9_-]{43}$/);
    expect(res.body.app).toMatchObject({ id: 'shop', name: 'Shop', plan: 'pro', source: 'api' });
    const list = await h.admin('GET', '/api/admin/apps');
    expect(list.body.apps.map((a: { id: string }) => a.id)).toEqual(['shop']);
    expect(JSON.stringify(list.body)).not.toContain(res.body.appSecret);
    expect((await h.admin('POST', '/api/admin/apps', { id: 'shop' })).status).toBe(409);
  });

  test('an unknown plan or a bad id is a 400 naming the field', async () => {
    h = await createHarness();
    expect((await h.admin('POST', '/api/admin/apps', { plan: 'gold' })).body.detail).toBe('plan must be one of free, pro');
    expect((await h.admin('POST', '/api/admin/apps', { id: 'has space' })).body.detail).toBe('id has an invalid format');
    expect((await h.admin('POST', '/api/admin/apps', { nmae: 'typo' })).body.detail).toBe('nmae is not a known field');
  });

  test('update, rotate a secret, and delete', async () => {
    h = await createHarness();
    const app = await h.createApp({ id: 'a1' });
    const patched = await h.admin('PATCH', '/api/admin/apps/a1', { name: 'Renamed', plan: 'free' });
    expect(patched.body).toMatchObject({ name: 'Renamed', plan: 'free' });
    const rotated = await h.admin('POST', '/api/admin/apps/a1/secrets/app-secret');
    expect(rotated.body.appSecret).not.toBe(app.appSecret);
    const shown = await h.admin('GET', '/api/admin/apps/a1/secrets');
    expect(shown.body).toEqual({ appSecret: rotated.body.appSecret, signingSecret: app.signingSecret });
    const old = await h.request('POST', '/api/apps/a1/devices', {
      headers: { 'x-service-key': app.appSecret },
      body: { endUserId: 'u', platform: 'ios', token: 't' },
    });
    expect(old.status).toBe(401);
    expect((await h.admin('DELETE', '/api/admin/apps/a1')).body).toEqual({ success: true });
    expect((await h.admin('GET', '/api/admin/apps/a1')).status).toBe(404);
  });

  test('APNs and FCM credentials are checked, stored, shown without keys, and removable', async () => {
    h = await createHarness();
    await h.createApp({ id: 'a1' });
    const bad = await h.admin('PUT', '/api/admin/apps/a1/apns', { bundleId: 'com.x', teamId: 'TEAM123456', keyId: 'KEY1234567', key: 'not a key' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('key must be an APNs auth key');
    const key = p8();
    const ok = await h.admin('PUT', '/api/admin/apps/a1/apns', { bundleId: 'com.x', teamId: 'TEAM123456', keyId: 'KEY1234567', key });
    expect(ok.body.channels.apns).toMatchObject({ transport: 'apns', bundleId: 'com.x', environment: 'production', status: 'active', sandboxEndpoint: null });
    const both = await h.admin('PUT', '/api/admin/apps/a1/apns', {
      bundleId: 'com.x', teamId: 'TEAM123456', keyId: 'KEY1234567', key, environment: 'sandbox', endpoint: 'https://127.0.0.1:9443', sandboxEndpoint: 'https://127.0.0.1:9445',
    });
    expect(both.body.channels.apns).toMatchObject({ environment: 'sandbox', endpoint: 'https://127.0.0.1:9443', sandboxEndpoint: 'https://127.0.0.1:9445' });
    expect(JSON.stringify(ok.body)).not.toContain('PRIVATE KEY');
    const fcmBad = await h.admin('PUT', '/api/admin/apps/a1/fcm', { serviceAccount: { project_id: 'p' } });
    expect(fcmBad.body.detail).toBe('serviceAccount.client_email is required');
    const removed = await h.admin('DELETE', '/api/admin/apps/a1/apns');
    expect(removed.body.channels.apns.transport).toBe('simulator');
  });

  test('APNs identifiers of the wrong shape are refused, naming the field', async () => {
    h = await createHarness();
    await h.createApp({ id: 'a1' });
    const ids = { bundleId: 'com.x', teamId: 'TEAM123456', keyId: 'KEY1234567', key: p8() };
    for (const [patch, detail] of [
      [{ bundleId: 'com.x\r\nx-evil: 1' }, 'bundleId must be a reverse-DNS bundle id such as com.example.app (letters, digits, - and .)'],
      [{ bundleId: 'app' }, 'bundleId must be a reverse-DNS bundle id such as com.example.app (letters, digits, - and .)'],
      [{ teamId: 'T1' }, 'teamId must be 10 characters of A-Z and 0-9'],
      [{ keyId: 'key1234567' }, 'keyId must be 10 characters of A-Z and 0-9'],
    ] as const) {
      const res = await h.admin('PUT', '/api/admin/apps/a1/apns', { ...ids, ...patch });
      expect({ status: res.status, detail: res.body.detail }).toEqual({ status: 400, detail });
    }
  });

  test('no secret is stored in plain text in the database file', async () => {
    h = await createHarness();
    const app = await h.createApp({ id: 'a1' });
    const key = p8();
    await h.admin('PUT', '/api/admin/apps/a1/apns', { bundleId: 'com.x', teamId: 'TEAM123456', keyId: 'KEY1234567', key });
    // The file itself (SQLite only): everything written so far moved from the WAL into it.
    await testRows(h.ctx, 'PRAGMA wal_checkpoint(TRUNCATE)');
    const file = readFileSync(h.dbPath).toString('latin1');
    expect(file).toContain('a1');
    expect(file).not.toContain(app.appSecret);
    expect(file).not.toContain(app.signingSecret);
    expect(file).not.toContain(key.split('\n')[1]!);
  });

  test('plans come from the configuration', async () => {
    h = await createHarness({ toml: '[plans.gold]\nlive_activities = true\noverage = true\n' });
    const res = await h.admin('GET', '/api/admin/plans');
    expect(res.body.plans).toContainEqual({ name: 'gold', liveActivities: true, minutes: null, overage: true });
  });

  test('apps declared in the configuration are upserted with their given secrets', async () => {
    h = await createHarness({ toml: '[[apps]]\nid = "cfg"\nname = "From file"\napp_secret = "sk_given_secret"\n' });
    const res = await h.admin('GET', '/api/admin/apps/cfg');
    expect(res.body).toMatchObject({ id: 'cfg', name: 'From file', source: 'config' });
    const reg = await h.request('POST', '/api/apps/cfg/devices', {
      headers: { 'x-service-key': 'sk_given_secret' },
      body: { endUserId: 'u', platform: 'android', token: 't' },
    });
    expect(reg.status).toBe(200);
  });
});

describe('admin API: authentication comes first', () => {
  test('a bad body without the admin token is a 401, not a validation error', async () => {
    h = await createHarness();
    const res = await h.request('POST', '/api/admin/apps', { body: { id: 'has space', bogus: 1 } });
    expect(res.status).toBe(401);
  });
});
