import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';

/* The Send page schedules a send for a wall time in each device's zone; the scheduled list shows it with its time and cancels it, in a real Chromium against the real server. */

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

describe('console: scheduled sends', () => {
  test('the send page schedules for a local time; the scheduled list shows it with its time and cancels it', async () => {
    await page.goto(`${islet.url}/console`);
    await page.getByLabel('Admin token').fill(islet.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    await page.goto(`${islet.url}/console/apps/demo/send`);
    await page.getByRole('combobox', { name: 'Template', exact: true }).selectOption('welcome');
    await page.getByLabel('Target end users').fill('demo-user');

    // 09:00 two days from now, wherever each device is.
    const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    await page.getByRole('combobox', { name: 'Send', exact: true }).selectOption('local');
    await page.getByLabel('Time').fill(`${day}T09:00`);
    await page.getByRole('button', { name: 'Schedule notification' }).click();
    await page.getByText(/^Scheduled for /).first().waitFor();
    await page.getByText('(2 devices now).').waitFor();

    const list = page.getByRole('list', { name: 'Scheduled sends' });
    const item = list.getByRole('listitem').filter({ hasText: 'welcome' });
    await item.waitFor();
    const messageId = (await item.locator('.mono').last().textContent())!.trim();
    expect(messageId).toMatch(/^msg_/);
    expect(await item.locator('time').first().getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    await screenshot(page, 'desktop-send-scheduled');

    await item.getByRole('button', { name: /^Cancel / }).click();
    // Cancelling asks first (issue 50).
    await page.getByRole('dialog', { name: 'Cancel this scheduled send?' }).getByRole('button', { name: 'Cancel the send' }).click();
    await page.getByText('Cancelled: 2 deliveries will not go').waitFor();
    await list.waitFor({ state: 'detached' });

    const res = await fetch(`${islet.url}/api/apps/demo/notifications/${messageId}`, { headers: { 'x-service-key': appSecret } });
    const body = (await res.json()) as { schedule: { scheduled: number; cancelled: number } };
    expect(body.schedule).toMatchObject({ scheduled: 0, cancelled: 2 });
    expect(recorder.errors).toEqual([]);
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
  }, SLOW);

  test("the app's settings edit its default time zone; a name that is not a zone is refused, naming the field", async () => {
    await page.goto(`${islet.url}/console/apps/demo`);
    const zone = page.getByLabel('Default time zone');
    expect(await zone.inputValue()).toBe('UTC');
    await zone.fill('Mars/Olympus');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText(/^defaultTimeZone must be an IANA time zone/).waitFor();
    await zone.fill('europe/vienna');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Settings saved').waitFor();
    const app = (await (await fetch(`${islet.url}/api/admin/apps/demo`, { headers: { authorization: `Bearer ${islet.adminToken}` } })).json()) as { defaultTimeZone: string };
    expect(app.defaultTimeZone).toBe('Europe/Vienna');
    expect(recorder.errors).toEqual([]);
  }, SLOW);
});
