import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';
import { eventually } from '../../src/test-support/eventually';

/* The app page sets its quiet hours and frequency cap (issue 48), and clears them, in a real Chromium against the real server. */

let islet: IsletProcess;
let browser: Browser;
let page: Page;
const recorder: Recorder = { requests: [], errors: [] };
const SLOW = 120_000;

beforeAll(async () => {
  islet = await startIslet();
  browser = await launchChromium();
  page = await (await newRecordedContext(browser, 'desktop', recorder)).newPage();
  await fetch(`${islet.url}/api/admin/demo`, { method: 'POST', headers: { authorization: `Bearer ${islet.adminToken}` } });
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await islet?.stop();
});

const app = async () =>
  (await (await fetch(`${islet.url}/api/admin/apps/demo`, { headers: { authorization: `Bearer ${islet.adminToken}` } })).json()) as { quietHours: unknown; frequencyCap: unknown };

describe('console: quiet hours and frequency cap', () => {
  test('sets quiet hours and a cap; a malformed time is refused naming quietHours; empty fields turn both off', async () => {
    await page.goto(`${islet.url}/console`);
    await page.getByLabel('Admin token').fill(islet.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    await page.goto(`${islet.url}/console/apps/demo`);
    const save = page.getByRole('button', { name: 'Save limits' });

    await page.getByLabel('Quiet from').fill('22:00');
    await page.getByLabel('Quiet until').fill('7:00');
    await save.click();
    await page.getByText(/^quietHours\.end must be a time of day HH:MM/).waitFor();
    await page.getByLabel('Quiet until').fill('07:00');
    await page.getByLabel('At most (notifications)').fill('3');
    await page.getByLabel('Per (hours)').fill('24');
    await save.click();
    await page.getByText('Delivery limits saved').waitFor();
    expect(await app()).toMatchObject({ quietHours: { start: '22:00', end: '07:00' }, frequencyCap: { count: 3, perHours: 24 } });
    await screenshot(page, 'desktop-app-delivery-limits');

    for (const label of ['Quiet from', 'Quiet until', 'At most (notifications)', 'Per (hours)']) await page.getByLabel(label).fill('');
    await save.click();
    // The first save's toast may still show: the server's answer tells when the second went.
    await eventually(async () => expect(await app()).toMatchObject({ quietHours: null, frequencyCap: null }));
    expect(recorder.errors).toEqual([]);
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
  }, SLOW);
});
