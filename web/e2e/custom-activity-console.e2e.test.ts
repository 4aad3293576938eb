import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';

/*
 * Issue 50 points 5 and 6 in a real Chromium against the real server (simulator delivery): the
 * console starts, updates and ends an activity of the app's own template (the demo's `ride`) with
 * inputs built from its typed fields, and a device shows the attributes types it can be started
 * with, its locale and its time zone.
 */

let islet: IsletProcess;
let browser: Browser;
let page: Page;
let phone: Page;
let appSecret: string;
const recorder: Recorder = { requests: [], errors: [] };
const SLOW = 120_000;
const RIDE_TOKEN = 'ab'.repeat(32);

const api = async (method: string, path: string, body?: unknown, auth: Record<string, string> = { authorization: `Bearer ${islet.adminToken}` }) => {
  const res = await fetch(`${islet.url}${path}`, { method, headers: { ...auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};
const service = (method: string, path: string, body?: unknown) => api(method, `/api/apps/demo${path}`, body, { 'x-service-key': appSecret });

const signIn = async (p: Page) => {
  await p.goto(`${islet.url}/console`);
  await p.getByLabel('Admin token').fill(islet.adminToken);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
};

beforeAll(async () => {
  islet = await startIslet();
  browser = await launchChromium();
  page = await (await newRecordedContext(browser, 'desktop', recorder)).newPage();
  phone = await (await newRecordedContext(browser, 'phone', recorder)).newPage();
  appSecret = (await api('POST', '/api/admin/demo')).body.appSecret;
  // An iPhone whose app only asked for RideAttributes' push-to-start token (no IsletActivityAttributes one).
  const device = await service('POST', '/devices', { endUserId: 'rider', platform: 'ios', token: 'cd'.repeat(32), pushToStartTokens: { RideAttributes: RIDE_TOKEN }, locale: 'de-AT', timeZone: 'Europe/Vienna' });
  expect(device.status).toBe(200);
  await signIn(page);
  await signIn(phone);
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await islet?.stop();
});

describe('console: the app’s own Live Activity templates', () => {
  test('starts a ride from its typed fields, updates it and ends it; the start went to the RideAttributes token', async () => {
    await page.goto(`${islet.url}/console/apps/demo/activities/new?template=ride`);
    const form = page.locator('form.editor-form');
    expect(await form.getByRole('radio', { name: /ride/ }).isChecked()).toBe(true);
    await form.locator('[name="attributes.driver"]').fill('Ana');
    await form.locator('[name="attributes.plate"]').fill('W-1234');
    await form.locator('[name="contentState.etaMinutes"]').fill('seven');
    await form.locator('[name="contentState.progress"]').fill('0.25');
    await form.locator('[name="contentState.arrived"]').selectOption('false');
    await form.locator('[name="contentState.stops"]').fill('Main St, Station');
    await form.getByLabel('Target end users').fill('rider');
    await form.getByRole('button', { name: 'Start Live Activity' }).click();
    // The template's own check, at its field, before anything is sent.
    await form.getByText('contentState.etaMinutes must be an integer').first().waitFor();
    await form.locator('[name="contentState.etaMinutes"]').fill('7');
    await page.getByRole('complementary', { name: 'Live preview' }).getByText('["Main St","Station"]').waitFor();
    await screenshot(page, 'custom-activity-start');
    await form.getByRole('button', { name: 'Start Live Activity' }).click();

    await page.waitForURL(/\/activities\/la_/);
    const id = page.url().split('/').pop()!;
    const timeline = page.getByRole('list', { name: 'Delivery timeline' });
    await timeline.locator('[data-status="sent"]').filter({ hasText: 'Start' }).waitFor();
    const start = (await api('GET', `/api/admin/apps/demo/live-activities/${id}/deliveries`)).body.deliveries[0];
    expect(start.sentPayload.url).toEndWith(`/3/device/${RIDE_TOKEN}`);
    expect(start.sentPayload.body.aps).toMatchObject({ 'attributes-type': 'RideAttributes', attributes: { driver: 'Ana', plate: 'W-1234' }, 'content-state': { etaMinutes: 7, progress: 0.25, arrived: false, stops: ['Main St', 'Station'] } });

    // Update: the form holds the current typed values as text.
    const update = page.getByRole('region', { name: 'Update' });
    expect(await update.locator('[name="contentState.etaMinutes"]').inputValue()).toBe('7');
    expect(await update.locator('[name="contentState.stops"]').inputValue()).toBe('Main St, Station');
    await update.locator('[name="contentState.etaMinutes"]').fill('soon');
    await update.getByRole('button', { name: 'Send update' }).click();
    await update.getByText('contentState.etaMinutes must be an integer').waitFor();
    await update.locator('[name="contentState.etaMinutes"]').fill('2');
    await update.getByRole('button', { name: 'Send update' }).click();
    await page.getByText('Update queued for delivery').waitFor();
    await timeline.locator('[data-status="sent"]').filter({ hasText: 'Update' }).waitFor();
    expect((await service('GET', `/live-activities/${id}`)).status).toBe(200);
    expect((await api('GET', `/api/admin/apps/demo/live-activities/${id}`)).body.contentState).toEqual({ etaMinutes: 2, progress: 0.25, arrived: false, stops: ['Main St', 'Station'] });
    await screenshot(page, 'custom-activity-update');

    await update.getByRole('button', { name: 'End activity' }).click();
    await page.getByRole('dialog', { name: 'End this Live Activity?' }).getByRole('button', { name: 'End activity' }).click();
    await page.getByRole('heading', { level: 1 }).getByText('Ended').waitFor();
    expect((await service('GET', `/live-activities/${id}`)).body.state).toBe('Ended');
    expect(recorder.errors).toEqual([]);
  }, SLOW);

  test('an unknown ?template= says so instead of showing another template’s form; the templates page links to the start', async () => {
    await page.goto(`${islet.url}/console/apps/demo/activities/new?template=taxi`);
    await page.getByText('This app has no Live Activity template taxi').waitFor();
    await page.goto(`${islet.url}/console/apps/demo/activity-templates`);
    await page.getByRole('region', { name: 'ride' }).getByRole('link', { name: 'Start' }).click();
    await page.waitForURL(/activities\/new\?template=ride/);
    expect(await page.locator('form.editor-form').getByRole('radio', { name: /ride/ }).isChecked()).toBe(true);
  }, SLOW);
});

describe('console: what a device can receive', () => {
  test('the API names the push-to-start types; the console shows them with locale and time zone, at 1280 and 390 px', async () => {
    const { body } = await api('GET', '/api/admin/apps/demo/devices?endUserId=rider');
    expect(body.devices[0]).toMatchObject({ hasPushToStartToken: true, pushToStartTypes: ['RideAttributes'], locale: 'de-AT', timeZone: 'Europe/Vienna' });
    const demoIphone = (await api('GET', '/api/admin/apps/demo/devices?endUserId=demo-user')).body.devices.find((d: { platform: string }) => d.platform === 'ios');
    expect(demoIphone).toMatchObject({ hasPushToStartToken: true, pushToStartTypes: ['IsletActivityAttributes'] });

    for (const [p, name] of [[page, 'device-push-to-start'], [phone, 'device-push-to-start-phone']] as const) {
      await p.goto(`${islet.url}/console/apps/demo/users/rider`);
      const devices = p.getByRole('table', { name: 'Devices' });
      await devices.getByText('push-to-start: RideAttributes').waitFor();
      await devices.getByText('Europe/Vienna').waitFor();
      await devices.getByText('de-AT').waitFor();
      expect(await devices.getByText('no push-to-start').count()).toBe(0);
      await screenshot(p, name);
    }
    await page.goto(`${islet.url}/console/apps/demo/devices`);
    await page.getByRole('button', { name: /rider/ }).first().click();
    const row = page.getByRole('row', { name: /rider/ }).filter({ hasText: 'iOS' });
    await row.getByText('push-to-start: RideAttributes').waitFor();
    await row.getByText('Europe/Vienna').waitFor();
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
  }, SLOW);
});
