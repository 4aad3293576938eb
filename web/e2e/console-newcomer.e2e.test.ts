import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';

/*
 * What a newcomer found in the console (issue 40), in a real Chromium against the real server:
 * a free plan that looked unlimited, tables cut off at phone width, an activity on two phones shown
 * as one platform, an unknown app with no way back, and a confirmation that read "on1 device".
 */

let islet: IsletProcess;
let browser: Browser;
let desktop: BrowserContext;
let page: Page;
const recorder: Recorder = { requests: [], errors: [] };
const SLOW = 120_000;

const heading = (p: Page, name: string | RegExp) => p.getByRole('heading', { level: 1, name });
const go = (p: Page, path: string) => p.goto(`${islet.url}/console${path}`);
const adminApi = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${islet.url}/api/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${islet.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  islet = await startIslet();
  expect((await adminApi('POST', '/demo')).status).toBe(201);
  expect((await adminApi('POST', '/apps', { name: 'Free app', id: 'free', plan: 'free' })).status).toBe(201);
  browser = await launchChromium();
  desktop = await newRecordedContext(browser, 'desktop', recorder);
  page = await desktop.newPage();
  await go(page, '');
  await page.getByLabel('Admin token').fill(islet.adminToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await heading(page, 'Apps').waitFor();
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await islet?.stop();
});

describe('the console as a newcomer found it', () => {
  test('a free plan says it has no Live Activities, and every start is disabled with the reason', async () => {
    await go(page, '/apps/free/usage');
    await heading(page, 'Usage').waitFor();
    await page.getByText('no Live Activities on this plan (free)').waitFor();
    const text = await page.locator('main').innerText();
    expect(text).not.toContain('unlimited');
    expect(text).not.toContain('∞');
    expect(text).not.toContain('minutes left');
    await screenshot(page, 'newcomer-free-usage');

    for (const [path, name] of [
      ['/apps/free', 'Start a Live Activity'],
      ['/apps/free/activities', 'Start a Live Activity'],
      ['/apps/free/broadcasts', 'Create a broadcast'],
    ] as const) {
      await go(page, path);
      // Once the plan is known (before, the action is the usual one).
      await page.getByText('No Live Activities on the free plan', { exact: true }).first().waitFor();
      const start = page.getByRole('button', { name }).first();
      expect(await start.isDisabled()).toBe(true);
      // The reason is written out and tied to the button.
      const reason = await start.getAttribute('aria-describedby');
      expect(await page.locator(`[id="${reason}"]`).innerText()).toBe('No Live Activities on the free plan');
      expect(await page.getByRole('link', { name }).count()).toBe(0);
    }

    // The form itself (reachable by its address) shows the reason and cannot start.
    await go(page, '/apps/free/activities/new');
    await page.getByText("No Live Activities on the free plan: a start is refused (403). Change the plan in the app's settings.").waitFor();
    const submit = page.getByRole('button', { name: 'Start Live Activity' });
    expect(await submit.isDisabled()).toBe(true);
    expect(await page.getByRole('dialog').count()).toBe(0);
    await screenshot(page, 'newcomer-free-start');

    // A plan with Live Activities still offers the start.
    await go(page, '/apps/demo/activities');
    await page.getByRole('link', { name: 'Start a Live Activity' }).waitFor();
  }, SLOW);

  test('the start confirmation spaces and counts its devices', async () => {
    await go(page, '/apps/demo/activities/new');
    await page.getByRole('button', { name: 'Start Live Activity' }).click();
    const dialog = page.getByRole('dialog', { name: 'Start for every end user?' });
    await dialog.getByRole('button', { name: 'Start on 3 devices' }).waitFor();
    const sentence = await dialog.locator('p').first().innerText();
    expect(sentence).toMatch(/^A [\w ]+ activity starts for each of 2 end users, on 3 devices \(1 iPhone with a push-to-start token, 2 Android devices\)\.$/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  }, SLOW);

  test('an activity on an iPhone and an Android phone shows both platforms and both previews', async () => {
    await go(page, '/apps/demo/activities/la_demo');
    const details = page.locator('.details');
    await details.waitFor();
    await page.getByRole('heading', { name: 'Devices' }).waitFor();
    expect(await details.innerText()).toContain('iOS, Android');
    expect(await details.innerText()).not.toMatch(/Platform\s*Android/);
    const surfaces = await page.locator('.editor-preview figure[data-surface]').evaluateAll((f) => f.map((e) => e.getAttribute('data-surface')));
    expect(surfaces).toEqual(['lock', 'compact', 'expanded', 'android']);
    await screenshot(page, 'newcomer-activity-two-platforms');
  }, SLOW);

  test('an unknown app is a not-found page with a way back to the apps', async () => {
    await go(page, '/apps/nope');
    await heading(page, 'App not found').waitFor();
    await page.getByText('No app has the id nope').waitFor();
    // Not the app's navigation, as if it existed.
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Broadcasts' }).count()).toBe(0);
    await screenshot(page, 'newcomer-app-not-found');
    await go(page, '/apps/nope/usage');
    await heading(page, 'App not found').waitFor();
    await page.getByRole('main').getByRole('link', { name: 'Back to your apps' }).click();
    await heading(page, 'Apps').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console');
  }, SLOW);

  test('at phone width no table is cut off: activities, devices, audit, broadcasts and an activity fit the screen', async () => {
    const phone = await newRecordedContext(browser, 'phone', recorder);
    await phone.addCookies(await desktop.cookies());
    const p = await phone.newPage();
    const found: { name: string; page: number; tables: number[] }[] = [];
    for (const [name, path] of [
      ['activities', '/apps/demo/activities'],
      ['devices', '/apps/demo/devices'],
      ['audit', '/audit'],
      ['broadcasts', '/apps/demo/broadcasts'],
      ['activity', '/apps/demo/activities/la_demo'],
    ] as const) {
      await go(p, path);
      await p.locator('h1').first().waitFor();
      await p.locator('main table tbody tr').first().waitFor();
      await p.locator('.loading').first().waitFor({ state: 'detached' });
      const fit = await p.evaluate(() => ({
        page: document.scrollingElement!.scrollWidth - innerWidth,
        // A table may scroll inside its card without the page overflowing: then its right part is hidden.
        tables: [...document.querySelectorAll('main table')].filter((t) => !t.closest('details:not([open])')).map((t) => Math.max(0, Math.round(t.getBoundingClientRect().right - innerWidth), t.scrollWidth - t.clientWidth, t.parentElement!.scrollWidth - t.parentElement!.clientWidth)),
      }));
      found.push({ name, ...fit });
      await screenshot(p, `newcomer-phone-${name}`);
    }
    // Pixels hidden on the right, per page: the page itself, then each table.
    expect(found).toEqual(found.map(({ name, tables }) => ({ name, page: 0, tables: tables.map(() => 0) })));
    await phone.close();
  }, SLOW);

  test('no page asked any host but the server, and no script failed', () => {
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
    expect(recorder.errors).toEqual([]);
  });
});
