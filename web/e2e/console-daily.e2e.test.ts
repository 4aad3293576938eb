import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';

/*
 * The console used for a day on the demo app (real server, simulator deliveries): searching
 * deliveries, pages that follow sends as they happen, confirmations that name the consequence,
 * forms that start fresh and show every problem at its field, and the phone-width deliveries page.
 */

let islet: IsletProcess;
let browser: Browser;
let desktop: BrowserContext;
let page: Page;
const recorder: Recorder = { requests: [], errors: [] };
const SLOW = 120_000;

const heading = (p: Page, name: string | RegExp) => p.getByRole('heading', { level: 1, name });
const go = (path: string) => page.goto(`${islet.url}/console${path}`);
/** The public API as the app's backend, with the demo's App Secret. */
async function asBackend(method: string, path: string, body?: unknown) {
  const auth = { authorization: `Bearer ${islet.adminToken}` };
  const { appSecret } = (await (await fetch(`${islet.url}/api/admin/apps/demo/secrets`, { headers: auth })).json()) as { appSecret: string };
  const res = await fetch(`${islet.url}/api/apps/demo${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-service-key': appSecret },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return res.json();
}

beforeAll(async () => {
  islet = await startIslet();
  browser = await launchChromium();
  desktop = await newRecordedContext(browser, 'desktop', recorder);
  page = await desktop.newPage();
  await go('');
  await page.getByLabel('Admin token').fill(islet.adminToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await heading(page, 'Apps').waitFor();
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await islet?.stop();
});

describe('the console for daily use', () => {
  test('a first run creates the demo app from one button: end users, phones, a Live release, an activity and deliveries', async () => {
    await page.getByRole('button', { name: 'Create the demo app' }).click();
    await heading(page, 'Demo app').waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).first().waitFor();
    const stats = page.getByLabel('At a glance');
    await stats.getByRole('link', { name: /2\s*End users/ }).waitFor();
    await stats.getByRole('link', { name: /2\s*Active Live Activities/ }).waitFor();
    await stats.getByRole('link', { name: /7\s*Deliveries, last 24 h/ }).waitFor();
    await screenshot(page, 'daily-01-demo-overview');
  }, SLOW);

  test('filters deliveries by end user and status, kept in the address', async () => {
    await go('/apps/demo/deliveries');
    await heading(page, 'Deliveries').waitFor();
    const rows = page.locator('tbody tr[data-delivery]');
    await page.getByText('7 deliveries').waitFor();
    await page.getByLabel('End user').fill('demo-friend');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('1 delivery match').waitFor();
    expect(await rows.locator('td[data-label="End user"]').allTextContents()).toEqual(['demo-friend']);
    expect(new URL(page.url()).search).toBe('?endUserId=demo-friend');

    await page.getByLabel('End user').fill('demo-user');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('6 deliveries match').waitFor();
    await page.getByLabel('Status').selectOption('sent');
    await page.getByText('6 deliveries match').waitFor();
    expect(new Set(await rows.evaluateAll((r) => r.map((e) => e.getAttribute('data-status'))))).toEqual(new Set(['sent']));
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No delivery matches these filters').waitFor();
    await page.getByLabel('Kind').selectOption('la_start');
    expect(new URL(page.url()).searchParams.get('kind')).toBe('la_start');
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('7 deliveries').waitFor();
    await screenshot(page, 'daily-02-deliveries');
  }, SLOW);

  test('the deliveries and activity pages update by themselves while a send runs (no reload, no polling)', async () => {
    await go('/apps/demo/deliveries?templateSlug=order-shipped');
    await page.getByText('No delivery matches these filters').waitFor();
    await page.locator('.live-indicator.live-live').waitFor();
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    const before = recorder.requests.filter((u) => u.includes('/deliveries?')).length;
    await asBackend('POST', '/notifications/send', { templateSlug: 'order-shipped', variables: { order: '#7', eta: 'soon' } });
    await page.getByText('3 deliveries match').waitFor();
    await page.locator('tbody tr[data-status="sent"]').nth(2).waitFor();
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    // A handful of list loads for one send of three deliveries: events are coalesced, not one per delivery.
    expect(recorder.requests.filter((u) => u.includes('/deliveries?')).length - before).toBeLessThanOrEqual(6);

    await go('/apps/demo/activities/la_demo');
    const timeline = page.getByRole('list', { name: 'Delivery timeline' });
    await timeline.locator('[data-status="sent"]').filter({ hasText: 'Start' }).first().waitFor();
    await page.locator('.live-indicator.live-live').waitFor();
    await asBackend('PATCH', '/live-activities/la_demo', { contentState: { progress: '90', detail: 'Next stop' } });
    await timeline.locator('[data-status="sent"]').filter({ hasText: 'Update' }).nth(1).waitFor();
    await screenshot(page, 'daily-03-activity-live');
  }, SLOW);

  test('every consequential action asks first, naming the consequence with numbers from the server', async () => {
    // Promote to Live: which release it archives, and who gets the new templates.
    await go('/apps/demo/releases/2');
    await page.getByRole('button', { name: 'Promote to Live' }).click();
    const promote = page.getByRole('dialog', { name: 'Promote release 2 to Live?' });
    await promote.getByText(/This archives release 1, and 2 end users \(3 devices\) get notifications from the templates of release 2/).waitFor();
    await screenshot(page, 'daily-04-promote-confirm');
    await promote.getByRole('button', { name: 'Promote to Live' }).click();
    await heading(page, /Release 2\s*Live/).waitFor();
    await go('/apps/demo/releases/1');
    await heading(page, /Release 1\s*Archived/).waitFor();

    // A send to everyone: how many devices.
    await go('/apps/demo/send');
    await page.getByRole('combobox', { name: 'Template', exact: true }).selectOption('welcome');
    await page.getByRole('button', { name: 'Send notification' }).click();
    const send = page.getByRole('dialog', { name: 'Send to every end user?' });
    await send.getByText(/welcome goes to 3 devices of 2 end users \(1 iOS, 2 Android\), from release 2/).waitFor();
    await send.getByRole('button', { name: 'Cancel' }).click();
    await send.waitFor({ state: 'hidden' });
    expect(await page.getByText('notifications queued').count()).toBe(0);
    await page.getByRole('button', { name: 'Send notification' }).click();
    await send.getByRole('button', { name: 'Send to 3 devices' }).click();
    await page.getByText('3 notifications queued.').waitFor();

    // A start for everyone: how many devices it reaches.
    await go('/apps/demo/activities/new');
    await page.getByRole('button', { name: 'Start Live Activity' }).click();
    const start = page.getByRole('dialog', { name: 'Start for every end user?' });
    await start.getByText('1 iPhone with a push-to-start token, 2 Android devices').waitFor();
    await start.getByRole('button', { name: 'Start on 3 devices' }).click();
    await heading(page, 'Live Activities').waitFor();

    // Secret rotation: what stops working.
    await go('/apps/demo');
    await page.getByRole('button', { name: 'Rotate the App Secret' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the App Secret?' });
    await rotate.getByText(/Every API call your backend makes with the current App Secret is refused \(401\)/).waitFor();
    await rotate.getByRole('button', { name: 'Rotate' }).click();
    await rotate.waitFor({ state: 'hidden' });

    // App deletion: what goes with it.
    await page.getByRole('button', { name: 'Delete app…' }).click();
    const remove = page.getByRole('dialog', { name: 'Delete Demo app?' });
    await remove.getByText(/This deletes 2 end users with 3 devices, 4 active Live Activities \(no longer updated\)/).waitFor();
    await screenshot(page, 'daily-05-delete-confirm');
    await remove.getByRole('button', { name: 'Cancel' }).click();
    await remove.waitFor({ state: 'hidden' });
  }, SLOW);

  test('dialogs start fresh at every opening, and every problem of a form shows at its field', async () => {
    await go('/apps/demo/devices');
    await page.getByRole('button', { name: 'Add a simulated device' }).first().click();
    let dialog = page.getByRole('dialog', { name: 'Add a simulated device' });
    await dialog.getByLabel('End user id').fill('left-over');
    await dialog.getByLabel('Tester').check();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Add a simulated device' }).first().click();
    dialog = page.getByRole('dialog', { name: 'Add a simulated device' });
    expect(await dialog.getByLabel('Tester').isChecked()).toBe(false);
    expect(await dialog.getByLabel('End user id').inputValue()).not.toBe('left-over');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await go('/apps/demo/activities/new');
    await page.getByText('Progress bar', { exact: true }).click();
    await page.getByRole('textbox', { name: 'label', exact: true }).fill('');
    await page.getByRole('textbox', { name: 'progress', exact: true }).fill('140');
    await page.getByRole('button', { name: 'Start Live Activity' }).click();
    await page.getByRole('alert').filter({ hasText: '2 fields need attention' }).waitFor();
    const errors = page.locator('.field-error');
    expect(await errors.allTextContents()).toEqual(['attributes.label is required', 'contentState.progress must be a number string from 0 to 100']);
    expect(await page.getByRole('textbox', { name: 'label', exact: true }).getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'daily-06-all-problems');
  }, SLOW);

  test('at phone width the deliveries are cards without horizontal overflow', async () => {
    const phone = await newRecordedContext(browser, 'phone', recorder);
    await phone.addCookies(await desktop.cookies());
    const p = await phone.newPage();
    for (const [name, path] of [
      ['overview', '/apps/demo'],
      ['deliveries', '/apps/demo/deliveries'],
      ['deliveries-filtered', '/apps/demo/deliveries?endUserId=demo-user&status=sent'],
    ] as const) {
      await p.goto(`${islet.url}/console${path}`);
      await p.locator('h1').first().waitFor();
      await p.locator('.loading').first().waitFor({ state: 'detached' });
      await p.locator('tbody tr[data-delivery], .stats').first().waitFor();
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect({ name, overflow }).toEqual({ name, overflow: 0 });
      await screenshot(p, `daily-phone-${name}`);
    }
    // Each cell is labelled in the card, since the table's header row is hidden.
    const label = await p.evaluate(() => getComputedStyle(document.querySelector('tbody td[data-label="Status"]')!, '::before').content);
    expect(label).toBe('"Status"');
    await phone.close();
  }, SLOW);

  test('no page asked any host but the server, and no script failed', () => {
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
    expect(recorder.errors).toEqual([]);
  });
});
