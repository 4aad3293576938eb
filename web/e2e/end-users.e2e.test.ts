import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';

/* Issue 38 in the console, in a real Chromium against the real server: the send page's audience with its count, an end user's page and erasure. */

let islet: IsletProcess;
let browser: Browser;
let page: Page;
let appSecret: string;
const recorder: Recorder = { requests: [], errors: [] };
const SLOW = 120_000;
const api = (method: string, path: string, body?: unknown) =>
  fetch(`${islet.url}/api/apps/demo${path}`, { method, headers: { 'x-service-key': appSecret, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

beforeAll(async () => {
  islet = await startIslet();
  browser = await launchChromium();
  page = await (await newRecordedContext(browser, 'desktop', recorder)).newPage();
  const demo = await fetch(`${islet.url}/api/admin/demo`, { method: 'POST', headers: { authorization: `Bearer ${islet.adminToken}` } });
  appSecret = ((await demo.json()) as { appSecret: string }).appSecret;
  expect((await api('PUT', '/users/demo-user', { tags: { plan: 'gold', country: 'DE' } })).status).toBe(200);
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await islet?.stop();
});

describe('console: end users and audiences', () => {
  test('the send page builds an audience, shows how many devices it reaches, and sends to exactly those', async () => {
    await page.goto(`${islet.url}/console`);
    await page.getByLabel('Admin token').fill(islet.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    await page.goto(`${islet.url}/console/apps/demo/send`);
    await page.getByRole('combobox', { name: 'Template', exact: true }).selectOption('welcome');
    await page.getByRole('combobox', { name: 'Send to' }).selectOption('audience');
    const size = page.getByRole('status', { name: 'Audience size' });
    // No condition yet: everyone (demo-user's iPhone and Android phone, demo-friend's phone).
    await size.getByText('Reaches 3 devices of 2 end users.').waitFor();
    await page.getByLabel('Tags').fill('plan=gold,platinum');
    await page.getByRole('combobox', { name: 'Platform' }).selectOption('ios');
    await size.getByText('Reaches 1 device of 1 end user.').waitFor();
    await page.getByLabel('Tags').fill('plan=free');
    await size.getByText('Reaches 0 devices of 0 end users.').waitFor();
    await page.getByLabel('Tags').fill('plan=gold');
    await size.getByText('Reaches 1 device of 1 end user.').waitFor();
    await screenshot(page, 'desktop-send-audience');
    await page.getByRole('button', { name: 'Send notification' }).click();
    await page.getByText('1 notification queued.').waitFor();
    const messageId = (await page.getByRole('region', { name: 'Message status' }).locator('code').textContent())!;
    const status = (await (await api('GET', `/notifications/${messageId}`)).json()) as { platforms: { ios: { total: number }; android: { total: number } } };
    expect([status.platforms.ios.total, status.platforms.android.total]).toEqual([1, 0]);
  }, SLOW);

  test("an end user's page shows tags and devices; erasing asks first, then nothing of them is left", async () => {
    await page.goto(`${islet.url}/console/apps/demo/devices`);
    await page.getByRole('row').filter({ hasText: 'demo-user' }).getByRole('link', { name: 'Details' }).click();
    await page.getByRole('heading', { level: 1, name: 'demo-user' }).waitFor();
    const tags = page.getByRole('table', { name: 'Tags' });
    await tags.getByRole('row').filter({ hasText: 'plan' }).filter({ hasText: 'gold' }).waitFor();
    expect(await page.getByRole('table', { name: 'Devices' }).getByRole('row').count()).toBe(3);
    await page.getByRole('button', { name: 'Erase end user' }).click();
    const dialog = page.getByRole('dialog', { name: 'Erase demo-user?' });
    await dialog.getByText('Removes 2 devices with their tokens, 2 tags').waitFor();
    await screenshot(page, 'desktop-erase-end-user');
    // Cancel keeps them.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await api('GET', '/users/demo-user')).status).toBe(200);
    await page.getByRole('button', { name: 'Erase end user' }).click();
    await page.getByRole('dialog', { name: 'Erase demo-user?' }).getByRole('button', { name: 'Erase' }).click();
    await page.getByText('demo-user erased: 2 devices, 2 tags').waitFor();
    await page.getByRole('heading', { level: 1, name: 'End users & devices' }).waitFor();
    expect((await api('GET', '/users/demo-user')).status).toBe(404);
    const later = (await (await api('POST', '/notifications/send', { templateSlug: 'welcome', targetUsers: ['demo-user'] })).json()) as { messageCount: number };
    expect(later.messageCount).toBe(0);
    expect(recorder.errors).toEqual([]);
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
  }, SLOW);
});
