import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';

/* An activity of an app-defined template (the demo's `ride`) in a real Chromium against the real server. */

let islet: IsletProcess;
let browser: Browser;
let page: Page;
const recorder: Recorder = { requests: [], errors: [] };
const SLOW = 120_000;

beforeAll(async () => {
  islet = await startIslet();
  browser = await launchChromium();
  page = await (await newRecordedContext(browser, 'desktop', recorder)).newPage();
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await islet?.stop();
});

describe('console: app-defined Live Activity templates', () => {
  test('the activity page shows a generic preview: every field with the value sent', async () => {
    const auth = { authorization: `Bearer ${islet.adminToken}`, 'content-type': 'application/json' };
    const demo = await fetch(`${islet.url}/api/admin/demo`, { method: 'POST', headers: auth });
    const { appSecret } = (await demo.json()) as { appSecret: string };
    const start = await fetch(`${islet.url}/api/apps/demo/live-activities`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-key': appSecret },
      body: JSON.stringify({
        templateSlug: 'ride',
        attributes: { driver: 'Ana' },
        contentState: { etaMinutes: 7, arrived: false, pickupAt: '2026-11-28T09:30:00Z', stops: ['Main St', 'Station'] },
        targetUsers: ['demo-friend'],
      }),
    });
    expect(start.status).toBe(200);
    const id = ((await start.json()) as { activities: { id: string }[] }).activities[0]!.id;

    await page.goto(`${islet.url}/console`);
    await page.getByLabel('Admin token').fill(islet.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    await page.goto(`${islet.url}/console/apps/demo/activities/${id}`);
    await page.getByRole('heading', { level: 1, name: /ride/ }).waitFor();
    const preview = page.getByRole('complementary', { name: 'Preview' });
    await preview.getByText('Fields and values').waitFor();
    for (const [name, value] of [['driver', 'Ana'], ['etaMinutes', '7'], ['arrived', 'false'], ['stops', '["Main St","Station"]']]) {
      await preview.locator('div', { has: page.locator('dt', { hasText: name }) }).locator('dd', { hasText: value }).first().waitFor();
    }
    await screenshot(page, 'custom-template-activity');
    expect(recorder.errors).toEqual([]);
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
  }, SLOW);
});
