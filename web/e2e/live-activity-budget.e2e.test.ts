import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { createHmac } from 'node:crypto';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';

/* Issue 47 in the console: each push's priority and each instance's reported state on the activity page, and the app's Live Activity budget in its settings, in a real Chromium against the real server. */

let islet: IsletProcess;
let browser: Browser;
let page: Page;
let appSecret: string;
let signingSecret: string;
const recorder: Recorder = { requests: [], errors: [] };
const SLOW = 120_000;

beforeAll(async () => {
  islet = await startIslet();
  browser = await launchChromium();
  page = await (await newRecordedContext(browser, 'desktop', recorder)).newPage();
  const demo = await fetch(`${islet.url}/api/admin/demo`, { method: 'POST', headers: { authorization: `Bearer ${islet.adminToken}` } });
  ({ appSecret, signingSecret } = (await demo.json()) as { appSecret: string; signingSecret: string });
  await page.goto(`${islet.url}/console`);
  await page.getByLabel('Admin token').fill(islet.adminToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await islet?.stop();
});

const api = (method: string, path: string, body: unknown, headers: Record<string, string> = { 'x-service-key': appSecret }) =>
  fetch(`${islet.url}/api/apps/demo${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('console: the Live Activity budget', () => {
  test('the activity page shows the priority each push went at and what the device reported of its instance', async () => {
    const admin = { authorization: `Bearer ${islet.adminToken}` };
    const activity = (await (await fetch(`${islet.url}/api/admin/apps/demo/live-activities/la_demo`, { headers: admin })).json()) as { contentState: Record<string, string> };
    expect((await api('PATCH', '/live-activities/la_demo', { contentState: activity.contentState })).status).toBe(200);
    expect((await api('PATCH', '/live-activities/la_demo', { contentState: activity.contentState, priority: 5 })).status).toBe(200);
    const signature = createHmac('sha256', signingSecret).update('demo-user').digest('hex');
    expect((await api('POST', '/live-activities/la_demo/state', { deviceId: 'dev_demo_iphone', state: 'dismissed' }, { 'x-end-user-signature': signature })).status).toBe(200);

    await page.goto(`${islet.url}/console/apps/demo/activities/la_demo`);
    await page.getByText('dismissed on the device').waitFor();
    const timeline = page.getByRole('list', { name: 'Delivery timeline' });
    // The iPhone's two updates: auto (within the budget: 10), then an explicit 5.
    await timeline.locator('.push-priority', { hasText: 'priority 5' }).first().waitFor();
    expect(await timeline.locator('.push-priority', { hasText: 'priority 10' }).count()).toBeGreaterThan(0);
    await screenshot(page, 'desktop-activity-priorities');
    expect(recorder.errors).toEqual([]);
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
  }, SLOW);

  test("the app's settings edit its Live Activity budget; a value out of range is refused, naming the field", async () => {
    await page.goto(`${islet.url}/console/apps/demo`);
    const perHour = page.getByLabel('Priority-10 updates per hour');
    expect(await perHour.inputValue()).toBe('10');
    await perHour.fill('-3');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText(/priority10PerHour/).first().waitFor();
    await perHour.fill('4');
    await page.getByLabel('…with frequent updates allowed').fill('30');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Settings saved').waitFor();
    const app = (await (await fetch(`${islet.url}/api/admin/apps/demo`, { headers: { authorization: `Bearer ${islet.adminToken}` } })).json()) as { liveActivityBudget: unknown };
    expect(app.liveActivityBudget).toEqual({ priority10PerHour: 4, frequentPriority10PerHour: 30 });
    expect(recorder.errors).toEqual([]);
  }, SLOW);
});
