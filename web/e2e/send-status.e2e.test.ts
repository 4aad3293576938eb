import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';

/* The Send page follows the message it sent (messageId and its deliveries by state), in a real Chromium against the real server. */

let islet: IsletProcess;
let browser: Browser;
let page: Page;
let appSecret: string;
const recorder: Recorder = { requests: [], errors: [] };
const SLOW = 120_000;

beforeAll(async () => {
  islet = await startIslet();
  browser = await launchChromium();
  page = await (await newRecordedContext(browser, 'desktop', recorder)).newPage();
  const demo = await fetch(`${islet.url}/api/admin/demo`, { method: 'POST', headers: { authorization: `Bearer ${islet.adminToken}` } });
  appSecret = ((await demo.json()) as { appSecret: string }).appSecret;
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await islet?.stop();
});

describe('console: send page message status', () => {
  test('shows the message id and its deliveries by state, as the status endpoint counts them', async () => {
    await page.goto(`${islet.url}/console`);
    await page.getByLabel('Admin token').fill(islet.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    await page.goto(`${islet.url}/console/apps/demo/send`);
    await page.getByRole('combobox', { name: 'Template', exact: true }).selectOption('welcome');

    // Nobody reached: no message id, so nothing to follow.
    await page.getByLabel('Target end users').fill('nobody-here');
    await page.getByRole('button', { name: 'Send notification' }).click();
    await page.getByText('0 notifications queued.').waitFor();
    expect(await page.getByRole('region', { name: 'Message status' }).count()).toBe(0);

    // demo-user has an iPhone and an Android phone: two deliveries, sent to the simulator.
    await page.getByLabel('Target end users').fill('demo-user');
    await page.getByRole('button', { name: 'Send notification' }).click();
    await page.getByText('2 notifications queued.').waitFor();
    const status = page.getByRole('region', { name: 'Message status' });
    const messageId = (await status.locator('code').textContent())!;
    expect(messageId).toMatch(/^msg_/);
    await status.getByText('2 deliveries').waitFor();
    const counts = status.getByRole('list', { name: 'Deliveries by state' });
    // The page polls; Refresh asks at once.
    await status.getByRole('button', { name: 'Refresh' }).click();
    await counts.getByRole('listitem').filter({ hasText: 'sent' }).filter({ hasText: '2' }).waitFor();
    await status.getByText('iOS 1 · Android 1').waitFor();
    await screenshot(page, 'desktop-send-message-status');

    const res = await fetch(`${islet.url}/api/apps/demo/notifications/${messageId}`, { headers: { 'x-service-key': appSecret } });
    const body = (await res.json()) as { deliveries: { total: number; sent: number } };
    expect(body.deliveries).toMatchObject({ total: 2, sent: 2 });
    expect(recorder.errors).toEqual([]);
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
  }, SLOW);
});
