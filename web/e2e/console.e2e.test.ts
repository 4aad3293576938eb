import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';
import { apnsKey } from '../../src/test-support/delivery-fixtures';

/*
 * The console in a real Chromium against the real server (spawned as `serve`, deliveries going
 * to the simulator). The tests run in order and build on each other: the flow of a first visit.
 */

let islet: IsletProcess;
let browser: Browser;
let desktop: BrowserContext;
let page: Page;
const recorder: Recorder = { requests: [], errors: [] };
const flow: { appPath?: string; activityPath?: string; deliveryPath?: string } = {};

const SLOW = 120_000;

beforeAll(async () => {
  islet = await startIslet();
  browser = await launchChromium();
  desktop = await newRecordedContext(browser, 'desktop', recorder);
  page = await desktop.newPage();
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await islet?.stop();
});

const heading = (p: Page, name: string | RegExp) => p.getByRole('heading', { level: 1, name });
const nav = (p: Page, name: string) => p.getByRole('navigation', { name: 'Console' }).getByRole('link', { name });

describe('console', () => {
  test('signs in with the admin token after refusing a wrong one', async () => {
    // The server's root leads to the console.
    await page.goto(`${islet.url}/`);
    await heading(page, 'Sign in to the console').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console');
    await screenshot(page, 'desktop-01-sign-in');
    await page.getByLabel('Admin token').fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'invalid admin token' }).waitFor();

    // By keyboard: the field is reachable with Tab and Enter submits.
    await page.getByLabel('Admin token').fill('');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('token');
    await page.keyboard.type(islet.adminToken);
    await page.keyboard.press('Enter');
    await heading(page, 'Apps').waitFor();
    await page.getByRole('heading', { name: 'Ship Live Activities from your own server' }).waitFor();
    const cookies = await desktop.cookies();
    const session = cookies.find((c) => c.name === 'islet_session');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Strict');
    await screenshot(page, 'desktop-02-apps-empty');
  }, SLOW);

  test('creates an app and shows its secrets on request', async () => {
    await page.getByRole('button', { name: 'Create your first app' }).click();
    const dialog = page.getByRole('dialog', { name: 'New app' });
    await dialog.getByLabel('Name').fill('Demo Shop');
    expect(await dialog.getByLabel('App id').inputValue()).toBe('demo-shop');
    await dialog.getByRole('button', { name: 'Create app' }).click();
    await heading(page, 'Demo Shop').waitFor();
    flow.appPath = new URL(page.url()).pathname;
    expect(flow.appPath).toBe('/console/apps/demo-shop');

    const appSecret = page.getByLabel('App Secret', { exact: true });
    expect(await appSecret.textContent()).not.toContain('sk_');
    await page.getByRole('button', { name: 'Show secrets' }).click();
    await appSecret.filter({ hasText: /^sk_/ }).waitFor();
    await page.getByText('simulator').first().waitFor();
    await screenshot(page, 'desktop-03-app-overview');
  }, SLOW);

  test('adds a simulated iPhone for an end user', async () => {
    await nav(page, 'End users & devices').click();
    await page.getByRole('button', { name: 'Add a simulated device' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add a simulated device' });
    await dialog.getByLabel('End user id').fill('ada');
    await dialog.getByLabel('Platform').selectOption('ios');
    await dialog.getByRole('button', { name: 'Add device' }).click();
    const devices = page.getByRole('region', { name: 'Devices' });
    await devices.getByRole('cell', { name: 'ada', exact: true }).waitFor();
    await devices.getByText('valid').waitFor();
    await screenshot(page, 'desktop-04-devices');
  }, SLOW);

  test('starts a Live Activity from the generated form, with previews that follow the form', async () => {
    await nav(page, 'Live Activities').click();
    await heading(page, 'Live Activities').waitFor();
    await page.getByRole('link', { name: 'Start one' }).click();
    await heading(page, 'Start a Live Activity').waitFor();
    await page.getByText('Progress bar', { exact: true }).click();

    const preview = page.getByRole('group', { name: 'Preview of Progress bar' });
    await page.getByRole('textbox', { name: 'label', exact: true }).fill('Uploading holiday photos');
    await page.getByRole('textbox', { name: 'progress', exact: true }).fill('37');
    await preview.locator('[data-surface="lock"]').getByText('Uploading holiday photos').waitFor();
    await preview.locator('[data-surface="compact"] .pv-trail').filter({ hasText: '37%' }).waitFor();
    await preview.locator('[data-surface="expanded"]').getByText('37%').first().waitFor();
    await preview.locator('[data-surface="android"]').getByText('Uploading holiday photos').waitFor();

    await page.getByRole('textbox', { name: 'progress', exact: true }).fill('140');
    await page.getByRole('button', { name: 'Start Live Activity' }).click();
    await page.getByText('contentState.progress must be a number string from 0 to 100').first().waitFor();
    await page.getByRole('textbox', { name: 'progress', exact: true }).fill('37');
    await screenshot(page, 'desktop-05-start-activity');

    await page.getByRole('button', { name: 'Start Live Activity' }).click();
    // No end user named: the start goes to everyone, which is confirmed with the server's count.
    const confirm = page.getByRole('dialog', { name: 'Start for every end user?' });
    await confirm.getByText('1 iPhone with a push-to-start token, 0 Android devices').waitFor();
    await screenshot(page, 'desktop-05b-start-confirm');
    await confirm.getByRole('button', { name: 'Start on 1 device' }).click();
    await heading(page, /Uploading holiday photos/).waitFor();
    flow.activityPath = new URL(page.url()).pathname;
    expect(flow.activityPath).toMatch(/^\/console\/apps\/demo-shop\/activities\/la_/);
    const timeline = page.getByRole('list', { name: 'Delivery timeline' });
    await timeline.locator('[data-status="sent"]').filter({ hasText: 'Start' }).waitFor();
    await timeline.getByText('Payload (recorded by the simulator)').click();
    await timeline.getByText('"event": "start"').waitFor();
    // The activity's instance on the simulated iPhone: live, no update token reported yet, its start delivered.
    const instance = page.getByRole('region', { name: 'Devices' }).getByRole('row').filter({ hasText: 'iOS' });
    await instance.getByText('live', { exact: true }).waitFor();
    await instance.getByText('waiting', { exact: true }).waitFor();
    await instance.getByText('sent', { exact: true }).waitFor();
    await screenshot(page, 'desktop-06-activity-detail');
  }, SLOW);

  test('lists the activity and filters by state', async () => {
    await nav(page, 'Live Activities').click();
    const row = page.getByRole('row').filter({ hasText: 'Progress bar' });
    await row.filter({ hasText: 'ada' }).filter({ hasText: 'Active' }).waitFor();
    await page.getByLabel('State').selectOption('Ended');
    await page.getByText('No activity matches these filters').waitFor();
    await page.getByLabel('State').selectOption('Active');
    await row.waitFor();
    expect(new URL(page.url()).search).toBe('?state=Active');
    await screenshot(page, 'desktop-07-activities');
  }, SLOW);

  test('updates and ends the activity; each event shows in the timeline', async () => {
    await page.getByRole('row').filter({ hasText: 'Progress bar' }).getByRole('link').click();
    await heading(page, /Uploading holiday photos/).waitFor();
    await page.getByRole('textbox', { name: 'progress', exact: true }).fill('80');
    await page.getByRole('textbox', { name: 'detail', exact: true }).fill('40 of 50');
    await page.getByRole('group', { name: 'Preview of Progress bar' }).getByText('80%').first().waitFor();
    await page.getByRole('button', { name: 'Send update' }).click();
    const timeline = page.getByRole('list', { name: 'Delivery timeline' });
    await timeline.locator('[data-status="sent"]').filter({ hasText: 'Update' }).waitFor();

    await page.getByRole('button', { name: 'End activity' }).click();
    await page.getByRole('dialog', { name: 'End this Live Activity?' }).getByRole('button', { name: 'End activity' }).click();
    await heading(page, /Ended/).waitFor();
    await timeline.locator('[data-status="sent"]').filter({ hasText: 'End' }).waitFor();
    expect(await page.getByRole('button', { name: 'Send update' }).count()).toBe(0);
    await screenshot(page, 'desktop-08-activity-ended');
  }, SLOW);

  test('creates a release with a template, marks it Testing and promotes it to Live', async () => {
    await nav(page, 'Releases & templates').click();
    await page.getByRole('button', { name: 'New release' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New release' });
    expect(await dialog.getByLabel('Version').inputValue()).toBe('1');
    await dialog.getByLabel('Title').fill('Your order {{order}} has shipped');
    await dialog.getByLabel('Body').fill('Hi {{ name }}, it arrives {{eta}}.');
    await dialog.getByLabel('Slug').fill('order-shipped');
    await dialog.getByRole('button', { name: 'Create release' }).click();
    await heading(page, /Release 1/).waitFor();
    const card = page.locator('[data-slug="order-shipped"]');
    await card.getByText('Placeholders:').filter({ hasText: 'order' }).filter({ hasText: 'name' }).filter({ hasText: 'eta' }).waitFor();

    await page.getByRole('button', { name: 'Mark Testing' }).click();
    await heading(page, /Testing/).waitFor();
    await screenshot(page, 'desktop-09-release');
    await page.getByRole('button', { name: 'Promote to Live' }).click();
    const confirm = page.getByRole('dialog', { name: 'Promote release 1 to Live?' });
    await confirm.getByText(/No release is Live yet: 1 end user \(1 device\) get notifications from the templates of release 1/).waitFor();
    await confirm.getByRole('button', { name: 'Promote to Live' }).click();
    await heading(page, /Live/).waitFor();
  }, SLOW);

  test('sends a notification with variables and sees its delivery', async () => {
    await page.locator('[data-slug="order-shipped"]').getByRole('link', { name: 'Send…' }).click();
    await heading(page, 'Send a notification').waitFor();
    await page.getByLabel('order', { exact: true }).fill('#1042');
    await page.getByLabel('name', { exact: true }).fill('Ada');
    await page.getByLabel('eta', { exact: true }).fill('tomorrow');
    const preview = page.getByRole('group', { name: 'Notification preview' });
    await preview.getByText('Your order #1042 has shipped').first().waitFor();
    await preview.getByText('Hi Ada, it arrives tomorrow.').first().waitFor();
    await page.getByRole('button', { name: 'Send notification' }).click();
    const confirm = page.getByRole('dialog', { name: 'Send to every end user?' });
    await confirm.getByText(/goes to 1 device of 1 end user \(1 iOS, 0 Android\), from release 1/).waitFor();
    await confirm.getByRole('button', { name: 'Send to 1 device' }).click();
    await page.getByText('1 notification queued.').waitFor();
    await screenshot(page, 'desktop-10-send');

    await page.getByRole('link', { name: 'See deliveries →' }).click();
    await heading(page, 'Deliveries').waitFor();
    const row = page.locator('tr[data-kind="notification"][data-status="sent"]');
    await row.waitFor();
    // That message's deliveries only (issue 50): the activity's are in the whole list.
    expect(page.url()).toContain('messageId=msg_');
    expect(await page.locator('tr[data-kind^="la_"]').count()).toBe(0);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.locator('tr[data-kind^="la_"][data-status="sent"]').nth(2).waitFor();
    expect(await page.locator('tr[data-kind^="la_"][data-status="sent"]').count()).toBe(3);
    await row.getByRole('cell', { name: 'ada' }).waitFor();
    await screenshot(page, 'desktop-11-deliveries');
    // A delivery's own page: the request sent, its attempt, and the token it went to.
    await row.getByRole('link', { name: 'just now' }).click();
    await heading(page, /Notification to ada/).waitFor();
    flow.deliveryPath = new URL(page.url()).pathname;
    await page.getByRole('region', { name: 'Request sent' }).getByText('Hi Ada, it arrives tomorrow.').waitFor();
    await page.getByRole('region', { name: 'Attempts' }).getByText('Attempt 1').waitFor();
    await page.getByRole('region', { name: 'Token' }).getByText('APNs device token').waitFor();
    await page.getByRole('region', { name: 'What was queued' }).getByText('"templateSlug": "order-shipped"').waitFor();
    await screenshot(page, 'desktop-11b-delivery');
  }, SLOW);

  test('shows usage and the template gallery', async () => {
    await nav(page, 'Usage').click();
    await heading(page, 'Usage').waitFor();
    await page.getByRole('img', { name: /Minutes used per day/ }).waitFor();
    await page.getByText('minutes in the plan').waitFor();
    await screenshot(page, 'desktop-12-usage');
    await nav(page, 'Template gallery').click();
    await heading(page, 'Template gallery').waitFor();
    expect(await page.locator('.previews').count()).toBe(8);
    await screenshot(page, 'desktop-13-gallery');
  }, SLOW);

  test('removes a device, and the audit log lists every change with its session, filtered by action', async () => {
    await page.goto(`${islet.url}${flow.appPath}/devices`);
    await page.getByRole('button', { name: 'Add a simulated device' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add a simulated device' });
    await dialog.getByLabel('End user id').fill('bob');
    await dialog.getByRole('button', { name: 'Add device' }).click();
    const devices = page.getByRole('region', { name: 'Devices' });
    await devices.getByRole('cell', { name: 'bob', exact: true }).waitFor();
    const bobRow = devices.getByRole('row').filter({ has: page.getByRole('cell', { name: 'bob', exact: true }) });
    await bobRow.getByRole('button', { name: /^Remove device/ }).click();
    await devices.getByRole('cell', { name: 'bob', exact: true }).waitFor({ state: 'detached' });

    await nav(page, 'Audit log').click();
    await heading(page, 'Audit log').waitFor();
    const table = page.getByRole('table', { name: 'Audit log, newest first' });
    await table.locator('tr[data-action="device.remove"]').waitFor();
    const actions = await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
    for (const action of ['console.sign-in', 'app.create', 'device.register', 'device.remove', 'release.create', 'release.status'])
      expect(actions).toContain(action);
    await expect(table.locator('tr[data-action="device.remove"]').getByText(/^console session [0-9a-f]{8}$/).count()).resolves.toBe(1);
    await screenshot(page, 'desktop-14-audit');
    await page.getByLabel('Action').selectOption('device.remove');
    await table.locator('tr[data-action="app.create"]').waitFor({ state: 'detached' });
    expect(await table.locator('tbody tr').count()).toBe(1);
  }, SLOW);

  test('lists the instance serving the console as the scheduler leader', async () => {
    await nav(page, 'Instances').click();
    await heading(page, 'Instances').waitFor();
    const rows = page.getByRole('table', { name: 'Live instances, newest first' }).locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(1);
    await rows.first().getByText('leader', { exact: true }).waitFor();
  }, SLOW);

  test('shows a channel whose provider cannot be reached as down, with the deliveries it holds', async () => {
    const call = async (method: string, path: string, body: unknown, headers: Record<string, string>) => {
      const res = await fetch(`${islet.url}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBeLessThan(300);
      return (await res.json()) as Record<string, any>;
    };
    const admin = { authorization: `Bearer ${islet.adminToken}` };
    const { appSecret } = await call('POST', '/api/admin/apps', { id: 'unreachable', name: 'Unreachable' }, admin);
    // Port 1 on loopback: nothing listens, every connection is refused.
    const key = apnsKey();
    await call('PUT', '/api/admin/apps/unreachable/apns', { bundleId: 'com.example.x', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: 'https://127.0.0.1:1' }, admin);
    await call('POST', '/api/admin/apps/unreachable/releases', { version: 1, status: 'Live', templates: [{ slug: 'hi', title: 'Hi', body: 'There' }] }, admin);
    const service = { 'x-service-key': appSecret };
    await call('POST', '/api/apps/unreachable/devices', { endUserId: 'ada', platform: 'ios', token: 'ab'.repeat(32) }, service);
    expect((await call('POST', '/api/apps/unreachable/notifications/send', { templateSlug: 'hi' }, service)).messageCount).toBe(1);

    await page.goto(`${islet.url}/console/apps/unreachable`);
    await heading(page, 'Unreachable').waitFor();
    const down = page.locator('.endpoint-health[data-state="down"]');
    await down.waitFor({ timeout: 30_000 });
    await down.getByText('APNs is unreachable').waitFor();
    await down.getByText('1 delivery waits').waitFor();
    await screenshot(page, 'desktop-15-channel-down');
  }, SLOW);

  test('at phone width the menu opens as a drawer and the pages fit the screen', async () => {
    const phone = await newRecordedContext(browser, 'phone', recorder);
    await phone.addCookies(await desktop.cookies());
    const p = await phone.newPage();
    for (const [name, path] of [
      ['apps', '/console'],
      ['audit', '/console/audit'],
      ['instances', '/console/instances'],
      ['app-overview', flow.appPath!],
      ['activities', `${flow.appPath}/activities`],
      ['start-activity', `${flow.appPath}/activities/new`],
      ['activity-detail', flow.activityPath!],
      ['deliveries', `${flow.appPath}/deliveries`],
      ['delivery', flow.deliveryPath!],
      ['usage', `${flow.appPath}/usage`],
      ['devices', `${flow.appPath}/devices`],
      ['release', `${flow.appPath}/releases/1`],
      ['send', `${flow.appPath}/send`],
    ] as const) {
      await p.goto(islet.url + path);
      await p.locator('h1').first().waitFor();
      await p.locator('.loading').first().waitFor({ state: 'detached' });
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect({ name, overflow }).toEqual({ name, overflow: 0 });
      await screenshot(p, `phone-${name}`);
    }
    await p.getByRole('button', { name: 'Menu' }).click();
    await nav(p, 'Usage').waitFor({ state: 'visible' });
    await screenshot(p, 'phone-menu');
    await p.keyboard.press('Escape');
    await nav(p, 'Usage').waitFor({ state: 'hidden' });
    await p.getByRole('button', { name: 'Menu' }).click();
    await nav(p, 'Live Activities').click();
    await heading(p, 'Live Activities').waitFor();
    await phone.close();
  }, SLOW);

  test('signs out: the session no longer opens the admin API', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'Sign in to the console').waitFor();
    const status = await page.evaluate(async () => (await fetch('/api/admin/apps')).status);
    expect(status).toBe(401);
    await page.goto(`${islet.url}${flow.appPath}`);
    await heading(page, 'Sign in to the console').waitFor();
  }, SLOW);

  test('no page asked any host but the server, and no script failed', () => {
    expect(recorder.requests.length).toBeGreaterThan(20);
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
    expect(recorder.errors).toEqual([]);
  });
});
