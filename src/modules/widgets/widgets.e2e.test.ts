import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { apnsToken, startApnsStandin, type ApnsReceived, type ApnsStandin } from '../../test-support/apns-standin';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { until } from '../../test-support/eventually';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { serverClient } from '../../test-support/server-client';

const APP = 'wid';
const SECRET = 'sk_widgets_e2e';
const BUNDLE = 'com.example.widgets';

describe('WidgetKit reloads through a served process and the APNs stand-in', () => {
  const key = apnsKey();
  let apns: ApnsStandin;
  let served: ServedApp;
  const phone = { token: apnsToken(), widget: apnsToken(), control: apnsToken() };
  const other = { token: apnsToken(), widget: apnsToken() };
  let deviceId = '';
  /** The pushes the stand-in accepted (answered 200). */
  const delivered: ApnsReceived[] = [];

  beforeAll(async () => {
    apns = await startApnsStandin({ keys: [key], bundleIds: [BUNDLE] });
    apns.onDelivered((req) => delivered.push(req));
    served = await serveApp({
      app: APP,
      secret: SECRET,
      more:
        `[apps.apns]\nbundle_id = "${BUNDLE}"\nteam_id = "${key.teamId}"\nkey_id = "${key.keyId}"\nkey_file = "apns.p8"\nendpoint = "${apns.url}"\nca_file = "ca.pem"\n` +
        `[security]\nallow_private_endpoints = true\n`,
      files: { 'apns.p8': key.key, 'ca.pem': apns.ca },
    });
  }, 30_000);
  afterAll(async () => {
    await served?.close();
    await apns?.close();
  }, 30_000);

  const { call, admin } = serverClient(() => served.server.url, SECRET, 't');
  const waitUntil = (what: string, check: () => Promise<boolean> | boolean) => until(what, check, { intervalMs: 20, detail: () => `server output:\n${served.server.output()}` });
  const reloads = async (kind: string) => (await admin('GET', `/api/admin/apps/${APP}/deliveries?kind=${kind}`)).body.deliveries as { status: string; tokenId: number; reason: string | null }[];
  /** Ann's iPhone as the admin API (and the console's devices page) shows it. */
  const shownDevice = async () => ((await admin('GET', `/api/admin/apps/${APP}/devices?endUserId=ann`)).body.devices as { id: string }[]).find((d) => d.id === deviceId);
  const to = (token: string, type: string) => delivered.filter((r) => r.token === token && r.headers['apns-push-type'] === type);

  test('registration takes widget and control push tokens on iOS only, hex, and the device shows them', async () => {
    const bad = await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'ann', platform: 'ios', token: phone.token, widgetPushToken: 'not-hex' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toStartWith('widgetPushToken must be an APNs token');
    const badControl = await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'ann', platform: 'ios', token: phone.token, controlPushToken: 'abc' });
    expect(badControl.body.detail).toStartWith('controlPushToken must be an APNs token');
    const android = await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'ann', platform: 'android', token: 'fcm-ann', widgetPushToken: phone.widget });
    expect([android.status, android.body.detail]).toEqual([400, 'widgetPushToken is only for platform ios']);

    const registered = await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'ann', platform: 'ios', token: phone.token, widgetPushToken: phone.widget, controlPushToken: phone.control });
    expect(registered.status).toBe(200);
    expect(registered.body.device).toMatchObject({ hasWidgetPushToken: true, hasControlPushToken: true });
    deviceId = registered.body.device.id;
    expect(await shownDevice()).toMatchObject({ hasWidgetPushToken: true, hasControlPushToken: true });
    const bob = await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'bob', platform: 'ios', token: other.token, widgetPushToken: other.widget });
    expect(bob.body.device).toMatchObject({ hasWidgetPushToken: true, hasControlPushToken: false });
  }, 30_000);

  test('a reload naming nobody answers 400; one naming both targetUsers and audience too', async () => {
    const none = await call('POST', `/api/apps/${APP}/widgets/reload`, {});
    expect(none.status).toBe(400);
    expect(none.body.detail).toStartWith('targetUsers or audience is required');
    expect((await call('POST', `/api/apps/${APP}/controls/reload`, { targetUsers: ['ann'], audience: {} })).status).toBe(400);
  });

  test('widget and control reloads reach their tokens with the headers and body Apple documents', async () => {
    const widgets = await call('POST', `/api/apps/${APP}/widgets/reload`, { targetUsers: ['ann'] });
    expect([widgets.status, widgets.body]).toEqual([202, { tokenCount: 1, coalesced: 0 }]);
    const controls = await call('POST', `/api/apps/${APP}/controls/reload`, { audience: {} });
    // Bob's phone has no control token: only Ann's is reached.
    expect([controls.status, controls.body]).toEqual([202, { tokenCount: 1, coalesced: 0 }]);
    await waitUntil('both reloads reached the stand-in', () => to(phone.widget, 'widgets').length === 1 && to(phone.control, 'controls').length === 1);
    const widget = to(phone.widget, 'widgets')[0]!;
    expect(widget.headers).toMatchObject({ 'apns-push-type': 'widgets', 'apns-topic': `${BUNDLE}.push-type.widgets` });
    expect(widget.body).toEqual({ aps: { 'content-changed': true } });
    const control = to(phone.control, 'controls')[0]!;
    expect(control.headers).toMatchObject({ 'apns-push-type': 'controls', 'apns-topic': `${BUNDLE}.push-type.controls`, 'apns-priority': '10', 'apns-expiration': '0' });
    expect(control.body).toEqual({ aps: { 'content-changed': true } });
    // Nothing went to the device token itself.
    expect(apns.requests.filter((r) => r.token === phone.token)).toEqual([]);
  }, 30_000);

  test('several reloads before a send are one push per token', async () => {
    // A provider-auth refusal pauses the app's APNs channel: the reload waits, held, until the credentials are set again.
    apns.respond((req) => (req.token === phone.widget ? { status: 403, reason: 'InvalidProviderToken' } : undefined));
    expect((await call('POST', `/api/apps/${APP}/widgets/reload`, { targetUsers: ['ann'] })).body).toEqual({ tokenCount: 1, coalesced: 0 });
    await waitUntil('the reload is held by the paused channel', async () => (await reloads('widgets_reload')).some((d) => d.status === 'held'));
    apns.respond(undefined);
    expect((await call('POST', `/api/apps/${APP}/widgets/reload`, { targetUsers: ['ann', 'bob'] })).body).toEqual({ tokenCount: 2, coalesced: 1 });
    expect((await call('POST', `/api/apps/${APP}/widgets/reload`, { targetUsers: ['ann'] })).body).toEqual({ tokenCount: 1, coalesced: 1 });
    const before = to(phone.widget, 'widgets').length;
    const resumed = await admin('PUT', `/api/admin/apps/${APP}/apns`, { bundleId: BUNDLE, teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: apns.url, ca: apns.ca });
    expect(resumed.status).toBe(200);
    await waitUntil('no widget reload is waiting', async () => (await reloads('widgets_reload')).every((d) => d.status === 'sent'));
    // One push for the three reloads.
    expect(to(phone.widget, 'widgets').length - before).toBe(1);
    expect(to(other.widget, 'widgets').length).toBe(1);
  }, 30_000);

  test('an invalid widget token is retired alone: the device and its control token stay', async () => {
    apns.unregister(phone.widget);
    expect((await call('POST', `/api/apps/${APP}/widgets/reload`, { targetUsers: ['ann'] })).status).toBe(202);
    await waitUntil('the refusal was recorded', async () => (await reloads('widgets_reload')).some((d) => d.status === 'failed' || d.status === 'dropped'));
    expect(await shownDevice()).toMatchObject({ valid: true, hasWidgetPushToken: false, hasControlPushToken: true });
    expect((await call('POST', `/api/apps/${APP}/widgets/reload`, { targetUsers: ['ann'] })).body).toEqual({ tokenCount: 0, coalesced: 0 });
    expect((await call('POST', `/api/apps/${APP}/controls/reload`, { targetUsers: ['ann'] })).body).toEqual({ tokenCount: 1, coalesced: 0 });
  }, 30_000);

  test('a device with several controls registers their tokens as a set: a control reload reaches each, a set without one retires it', async () => {
    const phone2 = { token: apnsToken(), controls: [apnsToken(), apnsToken()] };
    const register = (controlPushTokens: string[]) => call('POST', `/api/apps/${APP}/devices`, { endUserId: 'cal', platform: 'ios', token: phone2.token, controlPushTokens });
    expect((await register(['nope'])).body.detail).toStartWith('controlPushTokens[0] must be an APNs token');
    expect((await register(phone2.controls)).status).toBe(200);
    expect((await call('POST', `/api/apps/${APP}/controls/reload`, { targetUsers: ['cal'] })).body).toEqual({ tokenCount: 2, coalesced: 0 });
    await waitUntil('both controls reloaded', () => phone2.controls.every((c) => to(c, 'controls').length === 1));
    expect((await register([phone2.controls[1]!])).status).toBe(200);
    expect((await call('POST', `/api/apps/${APP}/controls/reload`, { targetUsers: ['cal'] })).body).toEqual({ tokenCount: 1, coalesced: 0 });
    await waitUntil('the kept control reloaded again', () => to(phone2.controls[1]!, 'controls').length === 2);
    expect(to(phone2.controls[0]!, 'controls')).toHaveLength(1);
  }, 30_000);
});
