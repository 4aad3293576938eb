import { afterEach, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { createHarness, type Harness } from '../../test-support/harness';
import { apnsToken } from '../../test-support/apns-standin';
import { forEachDatabase } from '../../test-support/databases';
import type { AppContext } from '../../context';
import { tokensRepository } from '../tokens/tokens.repository';
import { devicesRepository } from './devices.repository';

let h: Harness<AppContext>;
afterEach(() => h?.close());

const sign = (secret: string, endUserId: string) => createHmac('sha256', secret).update(endUserId).digest('hex');
const device = { endUserId: 'user-1', platform: 'ios', token: apnsToken('a1b2c3'), pushToStartToken: apnsToken('p2s') };

forEachDatabase('devices', (database) => {
  describe('device registration', () => {
    test('the app backend registers a device with its service key', async () => {
      h = await createHarness({ database });
      const app = await h.createApp({ id: 'a1' });
      const res = await h.service(app.id, 'POST', '/api/apps/a1/devices', device);
      expect(res.status).toBe(200);
      expect(res.body.device).toMatchObject({ endUserId: 'user-1', platform: 'ios', hasPushToStartToken: true, valid: true });
      // Not declared: the app's default environment applies, and none is shown.
      expect(res.body.device.environment).toBeUndefined();
      expect(res.body.device.id).toMatch(/^dev_/);
      expect(JSON.stringify(res.body)).not.toContain(apnsToken('a1b2c3'));
    });

    test('the device itself registers with an end-user signature', async () => {
      h = await createHarness({ database });
      const app = await h.createApp({ id: 'a1' });
      const res = await h.request('POST', '/api/apps/a1/devices', {
        body: { ...device, platform: 'android' },
        headers: { 'x-end-user-signature': sign(app.signingSecret, 'user-1') },
      });
      expect(res.status).toBe(200);
      expect(res.body.device.platform).toBe('android');
    });

    test('a signature for another end user, or made with the wrong secret, is refused', async () => {
      h = await createHarness({ database });
      const app = await h.createApp({ id: 'a1' });
      for (const signature of [sign(app.signingSecret, 'user-2'), sign(app.appSecret, 'user-1'), 'zz']) {
        const res = await h.request('POST', '/api/apps/a1/devices', { body: device, headers: { 'x-end-user-signature': signature } });
        expect(res.status).toBe(401);
        expect(res.body.detail).toBe('invalid end user signature');
      }
      const devices = await h.admin('GET', '/api/admin/apps/a1/devices');
      expect(devices.body.total).toBe(0);
    });

    test('without credentials the answer names the header; another app key is invalid', async () => {
      h = await createHarness({ database });
      await h.createApp({ id: 'a1' });
      const other = await h.createApp({ id: 'a2' });
      const missing = await h.request('POST', '/api/apps/a1/devices', { body: device });
      expect(missing.body).toEqual({ title: 'Unauthorized', status: 401, detail: 'X-Service-Key or X-End-User-Signature header is required' });
      const wrong = await h.request('POST', '/api/apps/a1/devices', { body: device, headers: { 'x-service-key': other.appSecret } });
      expect(wrong.body.detail).toBe('invalid service key');
      const unknownApp = await h.request('POST', '/api/apps/nope/devices', { body: device, headers: { 'x-service-key': other.appSecret } });
      expect(unknownApp.body.detail).toBe('invalid service key');
    });

    test('registering the same token again updates the device instead of adding one', async () => {
      h = await createHarness({ database });
      const app = await h.createApp({ id: 'a1' });
      const first = await h.service(app.id, 'POST', '/api/apps/a1/devices', device);
      h.clock.advance(1000);
      const again = await h.service(app.id, 'POST', '/api/apps/a1/devices', { ...device, endUserId: 'user-9', tester: true });
      expect(again.body.device.id).toBe(first.body.device.id);
      expect(again.body.device.endUserId).toBe('user-9');
      const list = await h.admin('GET', '/api/admin/apps/a1/devices');
      expect(list.body.total).toBe(1);
      const users = await h.admin('GET', '/api/admin/apps/a1/end-users');
      expect(users.body.endUsers.find((u: { id: string }) => u.id === 'user-9')).toMatchObject({ tester: true, devices: 1 });
    });

    test('a device is removed by its id, then is gone', async () => {
      h = await createHarness({ database });
      const app = await h.createApp({ id: 'a1' });
      const { body } = await h.service(app.id, 'POST', '/api/apps/a1/devices', device);
      const bySignature = await h.request('DELETE', `/api/apps/a1/devices/${body.device.id}`, {
        headers: { 'x-end-user-signature': sign(app.signingSecret, 'user-1') },
      });
      expect(bySignature.body).toEqual({ success: true });
      const again = await h.service(app.id, 'DELETE', `/api/apps/a1/devices/${body.device.id}`);
      expect(again.status).toBe(404);
      expect(again.body.detail).toBe('device not found');
    });

    test('locale and time zone are kept in canonical form until the device reports others', async () => {
      h = await createHarness({ database });
      const app = await h.createApp({ id: 'a1' });
      const first = await h.service(app.id, 'POST', '/api/apps/a1/devices', { ...device, locale: 'pt-br', timeZone: 'europe/vienna' });
      expect(first.status).toBe(200);
      expect(first.body.device).toMatchObject({ locale: 'pt-BR', timeZone: 'Europe/Vienna' });
      // Absent fields leave them as they were; a new value replaces them.
      const again = await h.service(app.id, 'POST', '/api/apps/a1/devices', { ...device, locale: 'zh-Hant-TW' });
      expect(again.body.device).toMatchObject({ id: first.body.device.id, locale: 'zh-Hant-TW', timeZone: 'Europe/Vienna' });
      const listed = await h.admin('GET', '/api/admin/apps/a1/devices');
      expect(listed.body.devices[0]).toMatchObject({ locale: 'zh-Hant-TW', timeZone: 'Europe/Vienna' });
    });

    test('a locale or time zone that is not one answers 400 naming it, and changes nothing', async () => {
      h = await createHarness({ database });
      const app = await h.createApp({ id: 'a1' });
      await h.service(app.id, 'POST', '/api/apps/a1/devices', { ...device, locale: 'de-AT', timeZone: 'Europe/Vienna' });
      const cases: [Record<string, unknown>, string, Record<string, string>][] = [
        [{ locale: 'en_US' }, 'locale must be a BCP 47 language tag such as de-AT, pt-BR or zh-Hant-TW', { locale: 'en_US' }],
        [{ timeZone: '+01:00' }, 'timeZone must be an IANA time zone such as Europe/Vienna', { timeZone: '+01:00' }],
        [{ timeZone: 'Mars/Olympus' }, 'timeZone must be an IANA time zone such as Europe/Vienna', { timeZone: 'Mars/Olympus' }],
      ];
      for (const [fields, detail, named] of cases) {
        const res = await h.service(app.id, 'POST', '/api/apps/a1/devices', { ...device, ...fields });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ detail, ...named });
      }
      const listed = await h.admin('GET', '/api/admin/apps/a1/devices');
      expect(listed.body.devices[0]).toMatchObject({ locale: 'de-AT', timeZone: 'Europe/Vienna' });
    });

    test('bad fields are named', async () => {
      h = await createHarness({ database });
      const app = await h.createApp({ id: 'a1' });
      const cases: [unknown, string][] = [
        [{ platform: 'ios', token: 't' }, 'endUserId is required'],
        [{ ...device, platform: 'windows' }, 'platform must be one of ios, android, web'],
        [{ ...device, token: 5 }, 'token must be a string'],
        [{ ...device, tester: 'yes' }, 'tester must be true or false'],
        [{ ...device, extra: 1 }, 'extra is not a known field'],
        [[1], 'request body must be a JSON object'],
      ];
      for (const [body, detail] of cases) {
        const res = await h.service(app.id, 'POST', '/api/apps/a1/devices', body);
        expect({ status: res.status, detail: res.body.detail }).toEqual({ status: 400, detail });
      }
    });
  });

  describe('admin API: devices and end users', () => {
    test('lists devices newest first (by end user, paged) and end users with their valid devices; a push-to-start token moves with the phone', async () => {
      h = await createHarness({ database });
      await h.createApp({ id: 'a1' });
      const first = (await h.service('a1', 'POST', '/api/apps/a1/devices', { ...device, environment: 'sandbox', osVersion: '18.2' })).body.device;
      h.clock.advance(1000);
      // The same phone after a device-token rotation: its push-to-start token moves to the new row.
      const rotated = (await h.service('a1', 'POST', '/api/apps/a1/devices', { ...device, token: apnsToken('rotated') })).body.device;
      h.clock.advance(1000);
      await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId: 'user-2', platform: 'android', token: 'fcm-2' });
      expect(rotated.hasPushToStartToken).toBe(true);

      const all = (await h.admin('GET', '/api/admin/apps/a1/devices')).body;
      expect(all.total).toBe(3);
      expect(all.devices.map((d: { endUserId: string }) => d.endUserId)).toEqual(['user-2', 'user-1', 'user-1']);
      const mine = (await h.admin('GET', '/api/admin/apps/a1/devices?endUserId=user-1&limit=1&offset=1')).body;
      expect(mine).toMatchObject({ total: 2, devices: [{ id: first.id, environment: 'sandbox', osVersion: '18.2', hasPushToStartToken: false, valid: true }] });

      // Registered again without the fields: the environment and OS version stay.
      h.clock.advance(1000);
      const again = (await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId: 'user-1', platform: 'ios', token: device.token })).body.device;
      expect(again).toMatchObject({ id: first.id, environment: 'sandbox', osVersion: '18.2' });

      const users = (await h.admin('GET', '/api/admin/apps/a1/end-users')).body;
      expect(users.total).toBe(2);
      expect(users.endUsers.map((u: { id: string; tester: boolean; devices: number }) => [u.id, u.tester, u.devices])).toEqual([
        ['user-1', false, 2],
        ['user-2', false, 1],
      ]);
      expect((await h.admin('PATCH', '/api/admin/apps/a1/end-users/user-2', { tester: true })).body).toEqual({ id: 'user-2', tester: true });
      expect((await h.admin('PATCH', '/api/admin/apps/a1/end-users/nobody', { tester: true })).body.detail).toBe('end user not found');
    });

    test('the targets of a send: everyone, some end users, or their testers; valid devices only', async () => {
      h = await createHarness({ database });
      await h.createApp({ id: 'a1' });
      const ids = {} as Record<'a' | 'b' | 'c' | 'd', string>;
      for (const [endUserId, label, tester] of [['u1', 'a', true], ['u1', 'b', true], ['u2', 'c', false], ['u3', 'd', false]] as const) {
        const res = await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId, platform: 'ios', token: apnsToken(label), tester, ...(label === 'a' ? { pushToStartToken: apnsToken('p') } : {}) });
        ids[label] = res.body.device.id;
        h.clock.advance(1);
      }
      const repos = h.ctx.db.sql;
      const d = await tokensRepository(repos).ofDevice(ids.d);
      await tokensRepository(repos).invalidate(d[0]!.id, 'BadDeviceToken', h.clock.now());
      const targets = async (filter: { endUserIds?: string[]; testersOnly?: boolean }) => (await devicesRepository(repos).targets('a1', filter)).map((t) => t.id);
      const sends = async (filter: { endUserIds?: string[]; testersOnly?: boolean }) => [...(await devicesRepository(repos).sendTargets('a1', filter))].map((t) => t.deviceId);
      for (const read of [targets, sends]) {
        expect(await read({})).toEqual([ids.a, ids.b, ids.c]);
        expect(await read({ endUserIds: ['u2'] })).toEqual([ids.c]);
        expect(await read({ endUserIds: ['u2', 'u1', 'u3', 'nobody'] })).toEqual([ids.a, ids.b, ids.c]);
        expect(await read({ testersOnly: true })).toEqual([ids.a, ids.b]);
        expect(await read({ endUserIds: ['u2', 'u1'], testersOnly: true })).toEqual([ids.a, ids.b]);
      }
      const [a] = await devicesRepository(repos).targets('a1', { endUserIds: ['u1'] });
      const tokens = await tokensRepository(repos).ofDevice(ids.a);
      expect(a).toMatchObject({ platform: 'ios', tokenId: tokens.find((t) => t.kind === 'apns_device')!.id, pushToStartTokenId: tokens.find((t) => t.kind === 'apns_push_to_start')!.id });
      expect(typeof a!.createdAt).toBe('number');
    });
  });

  describe('admin API: audience', () => {
    test('counts the end users and valid devices a send to everyone (or every tester) reaches', async () => {
      h = await createHarness({ database });
      await h.createApp({ id: 'a1' });
      await h.service('a1', 'POST', '/api/apps/a1/devices', device);
      await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId: 'user-1', platform: 'ios', token: apnsToken('second') });
      await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId: 'user-2', platform: 'android', token: 'fcm-2' });
      await h.admin('PATCH', '/api/admin/apps/a1/end-users/user-2', { tester: true });
      expect((await h.admin('GET', '/api/admin/apps/a1/audience')).body).toEqual({ endUsers: 2, devices: 3, ios: 2, android: 1, web: 0, iosStartable: 1 });
      expect((await h.admin('GET', '/api/admin/apps/a1/audience?testersOnly=true')).body).toEqual({ endUsers: 1, devices: 1, ios: 0, android: 1, web: 0, iosStartable: 0 });
      expect((await h.admin('GET', '/api/admin/apps/nope/audience')).status).toBe(404);
      expect((await h.request('GET', '/api/admin/apps/a1/audience')).status).toBe(401);
    });
  });
});
